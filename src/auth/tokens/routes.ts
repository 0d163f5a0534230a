import { Type } from '@sinclair/typebox';
import {
  ForbiddenError,
  NotFoundError,
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  Envelope,
  isSudoActive,
  coversAbilities,
  type Text,
  changeWithEvent,
  originOf,
  notify,
  MAX_ROW_ID,
} from '../../plugin-api.ts';
import { tokensPage, type TokensPageProps } from './pages.ts';
import { tokensMessages } from './messages/index.ts';
import { MAX_ABILITIES, parseAbilities, parseExpiresAt, parseTokenId } from './input.ts';

/** A personal access token as its owner sees it: never the hash, never the token itself. */
const TokenRecordSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  abilities: Type.Array(Type.String()),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  organization_id: Type.Union([Type.Integer(), Type.Null()]),
});

const ABILITIES_HELP = 'Each ability must be "*", "<resource>:*" or "<resource>:read|create|update|delete".';

async function tokensPageProps(request: EndpointInput): Promise<TokensPageProps> {
  const { caller, services } = request;
  if (caller?.via !== 'session') return { tokens: [], needsSudo: false };
  const tokens = await services.tokens.listForUser(caller.user.id);
  // Creating asks for sudo; the page's link to it brings the browser back here afterwards.
  return { tokens, needsSudo: !(await isSudoActive(request)) };
}

const listTokens = defineEndpoint({
  method: 'GET',
  path: '/tokens',
  action: 'tokens.index',
  auth: 'session',
  ability: 'tokens:read',
  summary: "The caller's personal access tokens",
  responses: { 200: Envelope({ fields: { tokens: Type.Array(TokenRecordSchema) } }) },
  page: tokensPage,
  pageProps: tokensPageProps,
  async handler({ caller, services }) {
    const tokens = await services.tokens.listForUser(caller.user.id);
    return { status: 'success', fields: { tokens }, render: true };
  },
});

const createToken = defineEndpoint({
  method: 'POST',
  path: '/tokens',
  aliases: [{ method: 'POST', path: '/tokens/create' }],
  action: 'tokens.create',
  // A session needs sudo; a bearer token needs `tokens:create` (checked first: no sudo prompt for it).
  auth: 'sudo',
  impersonation: 'forbidden',
  ability: 'tokens:create',
  summary: 'Create a personal access token (shown once)',
  body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    abilities: Type.Optional(
      Type.Union([Type.Array(Type.String(), { maxItems: MAX_ABILITIES }), Type.String({ maxLength: 5000 })], {
        'x-message': 'Abilities must be a list of ability names.',
        'x-message-key': 'tokens.error.abilitiesList',
        description: `Abilities (default ["*"]); HTML forms may send one string separated by commas or spaces. ${ABILITIES_HELP}`,
      }),
    ),
    expires_at: Type.Optional(
      Type.String({ maxLength: 64, title: 'Expiry', description: 'ISO 8601, in the future' }),
    ),
    organization_id: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ROW_ID }), Type.Null()], {
        description: 'The organization the token acts in (organizations plugin): one of yours',
      }),
    ),
  }),
  failures: [403],
  responses: {
    201: Envelope({ fields: { token: Type.String(), token_id: Type.Integer(), name: Type.String() } }),
  },
  page: tokensPage,
  pageProps: tokensPageProps,
  async handler(request) {
    const { body, caller, services, ip } = request;
    const errors: Record<string, Text> = {};
    const abilities = parseAbilities(body.abilities, errors);
    let expiresAt = parseExpiresAt(body.expires_at, services.clock.now(), errors);
    if (caller.via === 'token' && caller.token.expires_at !== null && expiresAt !== undefined) {
      // A token cannot extend its own life by minting a longer-lived one.
      if (expiresAt === null) expiresAt = caller.token.expires_at;
      else if (expiresAt > caller.token.expires_at)
        errors.expires_at ??= tokensMessages.text('error.expiryBeyondCaller');
    }
    // A token made by a token acts in the same organization, if that one has one.
    let organizationId = body.organization_id ?? null;
    if (caller.via === 'token' && caller.token.organization_id !== null) {
      if (organizationId === null) organizationId = caller.token.organization_id;
      else if (organizationId !== caller.token.organization_id)
        errors.organization_id ??= tokensMessages.text('error.sameOrganization');
    }
    if (
      organizationId !== null &&
      !errors.organization_id &&
      !(await services.tenancy?.isMember(services.db, caller.user.id, organizationId))
    )
      errors.organization_id = tokensMessages.text('error.notMember');
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (caller.via === 'token' && !coversAbilities(caller.token.abilities, abilities!)) {
      throw new ForbiddenError(tokensMessages.text('error.abilitiesBeyondCaller'));
    }
    const user = caller.user;
    const issued = await changeWithEvent(
      services,
      {
        userId: user.id,
        type: 'token_created',
        ...originOf(request),
        detail: { name: body.name, abilities: abilities!.join(' '), via: caller.via },
      },
      (db) =>
        services.tokens.issue(
          {
            userId: user.id,
            name: body.name,
            abilities: abilities!,
            expiresAt: expiresAt ?? null,
            organizationId,
          },
          db,
        ),
    );
    void notify(services, user, 'token_created', {
      subject: body.name,
      userAgent: originOf(request).userAgent,
      ip,
      locale: request.language.locale,
    });
    return {
      status: 'success',
      statusCode: 201,
      message: tokensMessages.text('answer.created'),
      fields: { token: issued.token, token_id: issued.record.id, name: issued.record.name },
      // Form clients see the page with the token on it, once; a redirect would lose it.
      render: true,
    };
  },
});

const revokeToken = defineEndpoint({
  method: 'DELETE',
  path: '/tokens/:id',
  aliases: [{ method: 'POST', path: '/tokens/revoke/:id' }],
  action: 'tokens.revoke',
  auth: 'session',
  ability: 'tokens:delete',
  impersonation: 'forbidden',
  summary: 'Revoke one of the caller’s tokens',
  params: Type.Object({ id: Type.String({ maxLength: 20 }) }),
  failures: [404],
  responses: { 200: Envelope() },
  async handler(request) {
    const { params, caller, services } = request;
    const id = parseTokenId(params.id);
    const userId = caller.user.id;
    // Someone else's token and no token at all look the same: ids reveal nothing.
    const revoked =
      id !== null &&
      (await changeWithEvent(
        services,
        { userId, type: 'token_revoked', ...originOf(request), detail: { token_id: id } },
        (db) => services.tokens.revoke(userId, id, db),
        (done) => done,
      ));
    if (!revoked) throw new NotFoundError(tokensMessages.text('error.notFound'));
    return { status: 'success', message: tokensMessages.text('answer.revoked'), redirect_to: '/tokens' };
  },
});

/** Personal access token management: list, create (shown once), revoke. */
export const tokenEndpoints = [listTokens, createToken, revokeToken] as const;
