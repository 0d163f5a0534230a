// The client's method names of the built-in endpoints, checked at the type level here (against
// `keyof client.auth`, flattened) and at run time by test/client/auth.test.ts (against the names
// the run-time rule gives the server's GET /endpoints list): both rules must agree.
import type { createClient } from '../../../src/client/index.ts';
import type {
  builtInConfig,
  demoConfig,
  emptyConfig,
  noPluginsConfig,
  pluginConfig,
  withoutAccountCenterConfig,
  withoutMagicLinkConfig,
} from './fixtures.ts';

export const BUILT_IN_NAMES = [
  'get',
  'me',
  'login',
  'logout',
  'register',
  'forgotPassword',
  'resetPassword.get',
  'resetPassword.send',
  'tokens.list',
  'tokens.create',
  'tokens.delete',
  'oauth.get',
  'oauth.callback',
  'setPassword.get',
  'setPassword.send',
  'action.show',
  'action.challenge',
  'action.handle',
  'action.cancel',
  'magicLink.send',
  'magicLink.verify',
  'passkey.login.options',
  'passkey.login.send',
  'twoFactor.get',
  'twoFactor.enroll.start',
  'twoFactor.enroll.confirm',
  'twoFactor.unenroll',
  'twoFactor.recoveryCodes',
  'sudo.get',
  'sudo.challenge',
  'sudo.verify',
  'sudo.exit',
  'account.get',
  'account.username',
  'account.email.send',
  'account.email.verify.get',
  'account.email.verify.send',
  'account.delete',
  'account.update',
  'sessions.list',
  'sessions.delete',
  'sessions.revokeOthers',
  'account.events',
  'token',
  'wellKnown.jwksJson',
  'admin.users.list',
  'admin.users.get',
  'admin.users.disable',
  'admin.users.enable',
  'admin.users.signOut',
  'admin.users.impersonate',
  'admin.impersonation.stop',
] as const;

/** Every dotted method name of a client object. */
type Names<T> = {
  [K in keyof T & string]:
    | (T[K] extends (...args: never[]) => unknown ? K : never)
    | (keyof T[K] extends never ? never : `${K}.${Names<T[K]>}`);
}[keyof T & string];

type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type AuthNames<C> = Names<ReturnType<typeof createClient<C>>['auth']>;
export const namesAgree: Exact<AuthNames<typeof builtInConfig>, (typeof BUILT_IN_NAMES)[number]> = true;

// Without `plugins` the server registers the built-ins: the client has exactly their methods.
export const namesWithoutPlugins: Exact<
  AuthNames<typeof noPluginsConfig>,
  (typeof BUILT_IN_NAMES)[number]
> = true;
export const namesOfEmptyConfig: Exact<AuthNames<typeof emptyConfig>, (typeof BUILT_IN_NAMES)[number]> = true;
/** The built-ins' names without the magic link's. */
type WithoutMagicLink = Exclude<(typeof BUILT_IN_NAMES)[number], `magicLink.${string}`>;
export const namesWithoutMagicLink: Exact<AuthNames<typeof withoutMagicLinkConfig>, WithoutMagicLink> = true;
/** The built-ins' names without the account center's and the administration's: the core's events list stays. */
type WithoutAccountCenter =
  | Exclude<(typeof BUILT_IN_NAMES)[number], `${'account' | 'sessions' | 'admin'}.${string}`>
  | 'account.events';
export const namesWithoutAccountCenter: Exact<
  AuthNames<typeof withoutAccountCenterConfig>,
  WithoutAccountCenter
> = true;
// A plugin of the application's own: its endpoints' names beside the built-ins'.
export const namesWithPlugin: Exact<
  AuthNames<typeof pluginConfig>,
  WithoutMagicLink | 'notes.get' | 'notes.pin'
> = true;

/**
 * The demo's own plugin (examples/blog/pages) beside the built-ins. `POST /my/posts/:id` has no
 * name of its own: `POST /my/posts` was first to take `my.posts.create`.
 */
export const BLOG_NAMES = [
  'posts.get',
  'posts.comments',
  'my.posts.list',
  'my.posts.create',
  'my.posts.new',
  'my.posts.edit',
  'my.posts.publish',
  'my.posts.delete',
] as const;
/** The organizations plugin (contract section 17), on in the demo. */
export const ORGANIZATION_NAMES = [
  'organizations.create',
  'organizations.list',
  'organizations.active',
  'organizations.invitations.accept',
  'organizations.invitations.confirmation',
  'organizations.get',
  'organizations.update',
  'organizations.delete',
  'organizations.invitations.create',
  'organizations.invitations.list',
  'organizations.invitations.delete',
  'organizations.members.update',
  'organizations.members.delete',
] as const;
/** The OAuth 2.1 authorization server and OpenID Provider (`oauthProvider()`), on in the demo. */
export const OAUTH_NAMES = [
  'oauth2.authorize.get',
  'oauth2.authorize.continue',
  'oauth2.authorize.consent',
  'oauth2.token',
  'oauth2.revoke',
  'oauth2.introspect',
  'oauth2.register',
  'oauth2.userinfo.get',
  'oauth2.userinfo.send',
  'oauth2.endSession.get',
  'oauth2.endSession.send',
  'wellKnown.oauthProtectedResource',
  'wellKnown.openidConfiguration',
  'wellKnown.oauthAuthorizationServer',
  'admin.oauth.clients.list',
  'admin.oauth.clients.create',
  'admin.oauth.clients.get',
  'admin.oauth.clients.delete',
  'admin.oauth.clients.secret',
  'admin.oauth.clients.disable',
  'admin.oauth.clients.enable',
  'account.apps.list',
  'account.apps.delete',
] as const;
export const demoNamesAgree: Exact<
  AuthNames<typeof demoConfig>,
  | (typeof BUILT_IN_NAMES)[number]
  | (typeof BLOG_NAMES)[number]
  | (typeof ORGANIZATION_NAMES)[number]
  | (typeof OAUTH_NAMES)[number]
> = true;
