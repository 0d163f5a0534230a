import { Type } from '@sinclair/typebox';
import { decodeJwt } from 'jose';
import {
  defineEndpoint,
  type EndpointInput,
  type EndpointResult,
  Envelope,
  endSession,
  html,
  csrfField,
  layout,
  type PageContext,
} from '../../plugin-api.ts';
import { getClient } from './clients.ts';
import { endPending } from './consent-pending.ts';
import { isCompactJws, verifyJwt } from './jwt.ts';
import { providerKeys } from './keys.ts';
import { oauthProviderOptions } from './options.ts';
import { redirectWith } from './authorize-request.ts';
import { oauthProviderMessages } from './messages/index.ts';

const Param = (description: string) => Type.Optional(Type.String({ maxLength: 8192, description }));

const EndSessionInput = Type.Object({
  id_token_hint: Param('An ID token this provider issued to the client'),
  post_logout_redirect_uri: Param('One of the client’s registered post-logout redirect URIs'),
  state: Param('Returned unchanged'),
  client_id: Param('The client, when there is no id_token_hint'),
  logout_hint: Param('Accepted, not used'),
  ui_locales: Param('Accepted, not used'),
});
type EndSessionParams = typeof EndSessionInput.static;

type EndSessionPageData = { view: 'confirm' | 'done' | 'error'; reason?: EndSessionRefusal };

/** Why a sign-out request cannot go on. */
type EndSessionRefusal = 'badHint' | 'clientMismatch' | 'badRedirect';

function endSessionPage(ctx: PageContext) {
  const t = oauthProviderMessages.in(ctx.language);
  const data = (ctx.outcome?.data ?? { view: 'error' }) as EndSessionPageData;
  if (data.view === 'done')
    return layout(
      ctx,
      t('logout.doneTitle'),
      html`<h1>${t('logout.doneHeading')}</h1>
        <p>${t('logout.doneHint')}</p>`,
    );
  if (data.view === 'confirm')
    return layout(
      ctx,
      t('logout.confirmTitle'),
      html`<h1>${t('logout.confirmTitle')}</h1>
        <p>${t('logout.confirmHint')}</p>
        <form method="post" action="/logout">
          ${csrfField(ctx)}<button type="submit">${t('logout.signOut')}</button>
        </form>`,
    );
  return layout(
    ctx,
    t('logout.errorTitle'),
    html`<h1>${t('logout.errorHeading')}</h1>
      <p>${data.reason ? t(`logout.reason.${data.reason}`) : t('logout.invalid')}</p>`,
  );
}

/** The ID token hint's claims (signature and issuer checked; an expired hint still names its user). */
async function verifiedHint(input: EndpointInput, token: string) {
  if (!isCompactJws(token)) return null;
  let iat: number | undefined;
  try {
    iat = decodeJwt(token).iat;
  } catch {
    return null;
  }
  if (typeof iat !== 'number' || iat * 1000 > input.services.clock.now().getTime() + 60_000) return null;
  const { issuer } = oauthProviderOptions(input.services);
  const verified = await verifyJwt(providerKeys(input.services), token, {
    typ: 'JWT',
    issuer,
    requiredClaims: ['sub', 'aud'],
    now: new Date(iat * 1000),
  });
  return verified?.payload ?? null;
}

function failure(reason: EndSessionRefusal): EndpointResult {
  const data: EndSessionPageData = { view: 'error', reason };
  return {
    status: 'error',
    statusCode: 400,
    message: oauthProviderMessages.text(`logout.reason.${reason}`),
    data,
    render: true,
  };
}

async function endSessionHandler(input: EndpointInput): Promise<EndpointResult> {
  const params = (input.method === 'GET' ? input.query : input.body) as EndSessionParams;
  const hint = params.id_token_hint ? await verifiedHint(input, params.id_token_hint) : undefined;
  if (hint === null) return failure('badHint');
  const audience = hint ? (Array.isArray(hint.aud) ? hint.aud[0] : hint.aud) : undefined;
  if (params.client_id !== undefined && audience !== undefined && params.client_id !== audience)
    return failure('clientMismatch');
  const clientId = audience ?? params.client_id;
  let redirect: string | null = null;
  if (params.post_logout_redirect_uri !== undefined) {
    const client = clientId === undefined ? undefined : await getClient(input.services.db, clientId);
    if (!client || !client.post_logout_redirect_uris.includes(params.post_logout_redirect_uri))
      return failure('badRedirect');
    redirect = params.post_logout_redirect_uri;
  }
  const caller = input.caller;
  const signedIn = caller?.via === 'session';
  if (signedIn && (!hint || hint.sub !== String(caller.user.id)))
    // Without proof that the application signed this user in, the user decides.
    return { status: 'info', data: { view: 'confirm' }, render: true };
  await endPending(input);
  if (signedIn) await endSession(input);
  if (redirect !== null)
    return {
      status: 'success',
      location: redirectWith(redirect, { state: params.state ?? null }),
    };
  return { status: 'success', data: { view: 'done' }, render: true };
}

const EndSessionResponse = Envelope({
  data: Type.Optional(Type.Object({ view: Type.String(), reason: Type.Optional(Type.String()) })),
});

const common = {
  path: '/oauth2/end-session',
  action: 'oauth2.end_session',
  auth: 'optional',
  bearer: false,
  responses: { 200: EndSessionResponse, 302: Type.Null() },
  failures: [400],
  secrets: ['id_token_hint'],
  rateLimit: { name: 'oauth-end-session:ip', max: 60, windowSeconds: 60 },
  page: endSessionPage,
  handler: endSessionHandler,
} as const;

/** RP-Initiated Logout 1.0, GET and POST. */
export const endSessionEndpoints = [
  defineEndpoint({ ...common, method: 'GET', query: EndSessionInput, summary: 'RP-initiated logout' }),
  defineEndpoint({
    ...common,
    method: 'POST',
    body: EndSessionInput,
    // An application's form posts here from its own site; the ID token hint is the proof.
    csrfExempt: true,
    summary: 'RP-initiated logout (form post)',
  }),
] as const;
