import { Type } from '@sinclair/typebox';
import { defineEndpoint, type EndpointInput, type EndpointResult, Envelope } from '../../plugin-api.ts';
import type { OAuthClient } from './clients.ts';
import { findActiveClient } from './clients.ts';
import {
  bindPending,
  endPending,
  readPending,
  startPending,
  type AuthorizationRequest,
  type PendingAuthorization,
} from './consent-pending.ts';
import { redirectWith, validateAuthorizeRequest, type AuthorizeQuery } from './authorize-request.ts';
import { authorizePage, type AuthorizePageData, type AuthorizeRefusal } from './consent-page.ts';
import { oauthProviderMessages } from './messages/index.ts';
import { consentedScopes, createGrant, issueCode, rememberConsent } from './token-store.ts';
import { coversScopes } from './scopes.ts';
import { oauthProviderOptions } from './options.ts';
import { readSignIn } from './sign-in-record.ts';

const RATE_LIMIT = { name: 'oauth-authorize:ip', max: 60, windowSeconds: 60 } as const;

const AuthorizeResponse = Envelope({
  data: Type.Optional(
    Type.Object({
      view: Type.Optional(Type.String()),
      client_name: Type.Optional(Type.String()),
      unverified: Type.Optional(Type.Boolean()),
      redirect_host: Type.Optional(Type.String()),
      scopes: Type.Optional(Type.Array(Type.String())),
      reason: Type.Optional(Type.String()),
    }),
  ),
});

const Param = (description: string) => Type.Optional(Type.String({ maxLength: 4000, description }));

const AuthorizeQuerySchema = Type.Object({
  response_type: Param('`code`'),
  client_id: Param('The client'),
  redirect_uri: Param('One of the redirect URIs the client registered'),
  scope: Param('Space-separated scopes'),
  state: Param('Returned unchanged'),
  code_challenge: Param('PKCE: base64url SHA-256 of the verifier'),
  code_challenge_method: Param('`S256`'),
  nonce: Param('Put in the ID token'),
  prompt: Param('`none`, `login`, `consent`'),
  max_age: Param('Seconds since the sign-in, at most'),
  login_hint: Param('Prefills the sign-in form (at most 191 characters; a longer one is ignored)'),
  resource: Param('RFC 8707: the resource API identifier or the issuer'),
  request: Param('Not supported'),
  request_uri: Param('Not supported'),
});

function errorPage(reason: AuthorizeRefusal): EndpointResult {
  const data: AuthorizePageData = { view: 'error', reason };
  const message = oauthProviderMessages.text(`consent.reason.${reason}`);
  return { status: 'error', statusCode: 400, message, data, render: true };
}

function redirectError(
  input: EndpointInput,
  authorization: Pick<AuthorizationRequest, 'redirectUri' | 'state'>,
  error: string,
  description: string,
): EndpointResult {
  const { issuer } = oauthProviderOptions(input.services);
  return {
    status: 'error',
    location: redirectWith(authorization.redirectUri, {
      error,
      error_description: description,
      state: authorization.state,
      iss: issuer,
    }),
  };
}

/** Issue the code and send the browser back to the client; the pending authorization ends. */
async function complete(
  input: EndpointInput,
  authorization: AuthorizationRequest,
  userId: number,
  signIn: { time: string; amr: string[] },
): Promise<EndpointResult> {
  const { services } = input;
  const { issuer, codeTtlSeconds } = oauthProviderOptions(services);
  const now = services.clock.now();
  const grantId = await createGrant(
    services.db,
    {
      userId,
      clientId: authorization.clientId,
      scope: authorization.scope,
      resource: authorization.resource,
      authTime: signIn.time,
      amr: signIn.amr,
    },
    now,
  );
  const code = await issueCode(
    services.db,
    {
      grantId,
      redirectUri: authorization.redirectUri,
      codeChallenge: authorization.codeChallenge,
      nonce: authorization.nonce,
    },
    new Date(now.getTime() + codeTtlSeconds * 1000),
  );
  await endPending(input);
  return {
    status: 'success',
    location: redirectWith(authorization.redirectUri, { code, state: authorization.state, iss: issuer }),
  };
}

function redirectHost(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/**
 * The next step of a pending authorization for this browser: sign in (Citadel's own sign-in,
 * every factor and action of the pipeline), consent, or the code.
 */
async function proceedAuthorization(
  input: EndpointInput,
  client: OAuthClient,
  pending: PendingAuthorization,
): Promise<EndpointResult> {
  const { services, caller } = input;
  const authorization = pending.request;
  const prompt = authorization.prompt;
  const user = caller?.via === 'session' ? caller.user : null;
  const signIn = user ? readSignIn(input) : undefined;
  const now = services.clock.now().getTime();
  const stale =
    !signIn ||
    (prompt.includes('login') && signIn.time < pending.createdAt) ||
    (authorization.maxAge !== null && now - Date.parse(signIn.time) > authorization.maxAge * 1000);
  if (!user || stale) {
    if (prompt.includes('none')) {
      await endPending(input);
      return redirectError(input, authorization, 'login_required', 'The user is not signed in.');
    }
    return { status: 'info', location: `${services.config.appUrl}/login` };
  }
  if (caller?.via === 'session' && caller.impersonator) {
    await endPending(input);
    return redirectError(input, authorization, 'access_denied', 'Not while acting as another user.');
  }
  const consented = await consentedScopes(services.db, user.id, client.client_id);
  if (!prompt.includes('consent') && consented && coversScopes(consented, authorization.scope))
    return complete(input, authorization, user.id, signIn);
  if (prompt.includes('none')) {
    await endPending(input);
    return redirectError(input, authorization, 'consent_required', 'The user has not consented yet.');
  }
  await bindPending(input, pending, user.id);
  const data: AuthorizePageData = {
    view: 'consent',
    client_name: client.client_name,
    unverified: client.registration === 'dynamic',
    redirect_host: redirectHost(authorization.redirectUri),
    scopes: authorization.scope,
  };
  return { status: 'info', data, render: true };
}

const authorize = defineEndpoint({
  method: 'GET',
  path: '/oauth2/authorize',
  action: 'oauth2.authorize',
  auth: 'optional',
  bearer: false,
  summary: 'OAuth 2.1 authorization endpoint (code flow with PKCE S256)',
  description:
    'Signs the user in (when needed), asks for consent, then redirects to the client with `code`, `state` and `iss`. An unknown client or redirect URI is shown on a page (400), never redirected to.',
  query: AuthorizeQuerySchema,
  responses: { 200: AuthorizeResponse, 302: Type.Null() },
  failures: [400],
  rateLimit: RATE_LIMIT,
  secrets: ['code_challenge', 'nonce', 'state'],
  page: authorizePage,
  async handler(input) {
    const checked = await validateAuthorizeRequest(input.services, input.query as AuthorizeQuery);
    if ('kind' in checked) {
      if (checked.kind === 'page') return errorPage(checked.reason);
      return redirectError(input, checked, checked.error, checked.description);
    }
    const pending = await startPending(input, checked.request);
    return proceedAuthorization(input, checked.client, pending);
  },
});

/** Where the sign-in sends the browser back to: the pending authorization goes on. */
const resume = defineEndpoint({
  method: 'GET',
  path: '/oauth2/authorize/continue',
  action: 'oauth2.authorize.continue',
  auth: 'optional',
  bearer: false,
  summary: "Continue this browser's pending authorization after signing in",
  responses: { 200: AuthorizeResponse, 302: Type.Null() },
  failures: [400],
  rateLimit: RATE_LIMIT,
  page: authorizePage,
  async handler(input) {
    const pending = await readPending(input);
    if (!pending) return errorPage('noPending');
    const client = await findActiveClient(input.services.db, pending.request.clientId);
    if (!client) {
      await endPending(input);
      return errorPage('unknownClient');
    }
    return proceedAuthorization(input, client, pending);
  },
});

const consent = defineEndpoint({
  method: 'POST',
  path: '/oauth2/authorize/consent',
  action: 'oauth2.authorize.consent',
  auth: 'session',
  bearer: false,
  summary: 'Allow or deny the pending authorization shown to the signed-in user',
  body: Type.Object({ decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]) }),
  responses: { 200: AuthorizeResponse, 302: Type.Null() },
  failures: [400],
  rateLimit: RATE_LIMIT,
  page: authorizePage,
  async handler(input) {
    const { caller, body, services } = input;
    const pending = await readPending(input);
    // Only the user the consent page was shown to can answer it.
    if (!pending || pending.userId !== caller.user.id) return errorPage('noAnswer');
    const client = await findActiveClient(services.db, pending.request.clientId);
    if (!client) {
      await endPending(input);
      return errorPage('unknownClient');
    }
    const authorization = pending.request;
    if (body.decision === 'deny') {
      await endPending(input);
      return redirectError(input, authorization, 'access_denied', 'The user denied the request.');
    }
    const signIn = readSignIn(input);
    if (!signIn) return proceedAuthorization(input, client, pending);
    await rememberConsent(
      services.db,
      caller.user.id,
      client.client_id,
      authorization.scope,
      services.clock.now(),
    );
    return complete(input, authorization, caller.user.id, signIn);
  },
});

export const authorizeEndpoints = [authorize, resume, consent] as const;
