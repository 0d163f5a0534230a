/**
 * What a plugin is written with: `definePlugin` and the plugin's parts (endpoints, hooks, events,
 * `init`, error codes, security events, migrations, pages), the errors an endpoint or hook answers
 * with, the `html` template and the migration helpers. Citadel's built-in plugins use this same API.
 * @packageDocumentation
 */
export {
  definePlugin,
  type CitadelPlugin,
  type PluginInitContext,
  type PluginErrorCodes,
  type PluginHooks,
  type PluginAsset,
  type HookMatch,
  type HookTarget,
  type HookAddition,
  type BeforeHook,
  type BeforeHookHandler,
  type AfterHook,
  type AfterHookHandler,
  type SignedInEvent,
  type SignedInInfo,
  type SignedInListener,
  type PasswordChangedListener,
  type RequestListener,
} from './auth/core/plugin.ts';
export {
  defineEndpoint,
  type Endpoint,
  type AnyEndpoint,
  type EndpointAuth,
  type EndpointInput,
  type EndpointMethod,
  type EndpointRateLimit,
  type PluginRateLimit,
  type EndpointResult,
} from './auth/core/endpoint.ts';
export { pageEndpoint } from './auth/core/page-endpoint.ts';
export { Envelope, PublicUserSchema } from './auth/core/envelope-schema.ts';
export { pluginOptions, givenOptions, checkInteger } from './auth/core/plugin-options.ts';
export type { CitadelConfig } from './config/types.ts';
export {
  recordSecurityEvent,
  type DeclaredEventTypes,
  type SecurityEventDeclaration,
  type SecurityEventType,
} from './auth/core/security-events.ts';
export type { CitadelServices } from './auth/core/services.ts';
export type { RequestContext } from './auth/core/request-context.ts';
export type { Caller } from './http/security/caller.ts';
export type { CallContext } from './http/request/call-context.ts';
export type { BearerVerifier } from './auth/core/caller.ts';
export {
  signingKeys,
  coverSigningLifetime,
  type SigningKeySet,
  type SigningKey,
  type JwsAlgorithm,
  type PublicJwk,
} from './auth/core/signing-keys.ts';
export type { SignInFact } from './auth/core/sign-in-facts.ts';
export type { PipelineAction, ActionContext } from './auth/core/sign-in/types.ts';
export type { Factor } from './auth/core/factors/types.ts';
export type { PageContext, PageRenderer } from './http/response/respond.ts';
export {
  HttpError,
  ValidationError,
  BadRequestError,
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  TooManyRequestsError,
  type HttpErrorOptions,
} from './core/errors.ts';
export { ConfigError } from './core/errors.ts';
export { html, raw, escapeHtml, SafeHtml, type HtmlValue } from './core/html.ts';
export { layout, field, form, csrfField } from './http/html/layout.ts';
export {
  defineMessages,
  LocalText,
  type MessageCatalog,
  type Language,
  type Text,
  type Texts,
} from './core/i18n/catalog.ts';
export type {
  EnglishCatalog,
  Translation,
  CompleteTranslation,
  Formatter,
  PluralForms,
} from './core/i18n/types.ts';
export { idColumn, userIdColumn, longText, TIMESTAMP } from './db/columns.ts';
export type { CitadelMigration } from './db/migrations/types.ts';
export type { Dialect } from './db/url.ts';

/**
 * The event types of plugins written against `citadel/plugin`, by declaration merging, so that
 * `recordSecurityEvent` accepts them: `declare module 'citadel/plugin' { interface
 * PluginSecurityEventTypes extends DeclaredEventTypes<typeof MY_EVENTS> {} }`. (A re-exported
 * interface cannot be merged through the re-export: this one is declared here.)
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginSecurityEventTypes {}
/** The interface above, under a name the augmentation below can extend. */
type ThirdPartyEventTypes = PluginSecurityEventTypes;

declare module './auth/core/security-events.ts' {
  // Third-party types join the built-ins' in `SecurityEventType`.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- only merges
  interface PluginSecurityEventTypes extends ThirdPartyEventTypes {}
}
