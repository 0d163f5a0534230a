import { Type } from '@sinclair/typebox';
import {
  BadRequestError,
  NotFoundError,
  type CitadelServices,
  defineEndpoint,
  Envelope,
  publicUser,
  beginSignIn,
  assertMaySignIn,
  signInAnswer,
} from '../../plugin-api.ts';
import { SocialProviders, type SocialProvider } from './providers.ts';
import { findOrCreateSocialUser } from './identities.ts';
import { startFlow, takeFlow } from './state.ts';
import { socialOptions } from './options.ts';
import { socialMessages } from './messages/index.ts';

const FAILED = socialMessages.text('error.failed');

/** The configured providers, built once per server (each one discovers its issuer once). */
const providersByConfig = new WeakMap<object, SocialProviders>();

function providerFor(services: CitadelServices, id: string): SocialProvider {
  const { config } = services;
  let providers = providersByConfig.get(config);
  if (!providers) {
    providers = new SocialProviders(socialOptions(services).providers, config.appUrl);
    providersByConfig.set(config, providers);
  }
  const provider = providers.get(id);
  if (!provider) throw new NotFoundError(socialMessages.text('error.unknownProvider'));
  return provider;
}

const ProviderParams = Type.Object({ provider: Type.String() });

/** A parameter of the provider's answer, passed on as it came (the exchange checks it). */
const AsSent = (description: string) => Type.Optional(Type.String({ 'x-raw': true, description }));

/** GET /oauth/{provider}: a fresh attempt (state, PKCE, nonce) in the session, then off to the provider. */
const redirectToProvider = defineEndpoint({
  method: 'GET',
  path: '/oauth/:provider',
  action: 'social.redirect',
  auth: 'anonymous',
  summary: 'Start signing in with a provider (302 to its authorization endpoint)',
  params: ProviderParams,
  failures: [400, 404],
  responses: { 302: Type.Null({ description: "Redirect to the provider's authorization endpoint" }) },
  async handler(request) {
    const { params, services } = request;
    const provider = providerFor(services, params.provider);
    const checks = startFlow(request, provider.id, provider.isOpenIdConnect);
    let url: URL;
    try {
      url = await provider.authorizationUrl(checks);
    } catch (error) {
      request.log.warn({ err: error, provider: provider.id }, 'social sign-in: provider discovery failed');
      throw new BadRequestError(socialMessages.text('error.unreachable'), {
        action: 'social.login',
      });
    }
    return { status: 'info', location: url.href };
  },
});

/** GET /oauth/callback/{provider}: the provider's answer; the code is exchanged and the user signed in. */
const providerCallback = defineEndpoint({
  method: 'GET',
  path: '/oauth/callback/:provider',
  action: 'social.login',
  auth: 'anonymous',
  summary: 'The provider sends the browser back here (OAuth 2.0 authorization response)',
  params: ProviderParams,
  query: Type.Object({
    code: AsSent('The authorization code'),
    state: AsSent('The state of this browser’s attempt'),
    iss: AsSent('The issuer (RFC 9207)'),
    error: AsSent('The provider refused'),
    error_description: AsSent('Not shown: the provider’s words are not ours to vouch for'),
    error_uri: AsSent('Not shown'),
  }),
  secrets: ['code', 'state'],
  // Signed in (`user`), or one more step to go (`login.action_required`, no user).
  failures: [400, 403, 404],
  responses: { 200: Envelope({ user: 'optional' }) },
  async handler(request) {
    const { params, query, services } = request;
    const provider = providerFor(services, params.provider);
    const checks = takeFlow(request, provider.id, query.state);
    if (query.error !== undefined) {
      // The provider's own words (error_description) are not shown: they are not ours to vouch for.
      request.log.info({ provider: provider.id, error: query.error.slice(0, 100) }, 'social sign-in refused');
      throw new BadRequestError(socialMessages.text('error.refused'));
    }
    if (!checks) throw new BadRequestError(socialMessages.text('error.invalidAttempt'));

    // The authorization response as the provider sent it (its declared parameters), for the
    // exchange to check: state, issuer, code.
    const callbackUrl = new URL(provider.redirectUri);
    for (const [key, value] of Object.entries(query)) {
      if (typeof value === 'string') callbackUrl.searchParams.set(key, value);
    }
    let profile;
    try {
      profile = await provider.exchange(callbackUrl, checks);
    } catch (error) {
      request.log.warn({ err: error, provider: provider.id }, 'social sign-in: code exchange failed');
      throw new BadRequestError(FAILED);
    }
    if (profile.subject.length === 0 || profile.subject.length > 191) throw new BadRequestError(FAILED);

    const { user, outcome } = await findOrCreateSocialUser(services, provider.id, profile);
    assertMaySignIn(services, user);

    const result = await beginSignIn(request, user, {
      purpose: 'login',
      remember: false,
      newAccount: outcome === 'created',
    });
    return signInAnswer(result, {
      status: 'success',
      message: socialMessages.text('answer.signedIn', { provider: provider.settings.label }),
      user: publicUser(user),
      redirect_to: '/',
    });
  },
});

/** Social sign-in: GET /oauth/{provider} redirects out, GET /oauth/callback/{provider} comes back. */
export const socialEndpoints = [redirectToProvider, providerCallback] as const;
