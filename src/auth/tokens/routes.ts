import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FieldReader } from '../../http/fields.ts';
import { respond } from '../../http/respond.ts';
import { requireAbility } from '../core/caller.ts';
import { ForbiddenError, NotFoundError } from '../../core/errors.ts';
import { isSudoActive, requireSudo } from '../sudo/guard.ts';
import { tokensPage, type TokensPageProps } from './pages.ts';
import { coversAbilities } from './abilities.ts';
import { parseTokenId, readAbilities, readExpiresAt } from './input.ts';

/** Route preHandler: a session user, or a bearer token holding `tokens:create`. */
async function tokenCreator(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  requireAbility(request, 'tokens:create');
}

/** Personal access token management: list, create (shown once), revoke. */
export async function tokensRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/tokens',
    { config: { action: 'tokens.index', page: tokensPage, pageProps: tokensPageProps } },
    async (request, reply) => {
      const caller = requireAbility(request, 'tokens:read');
      const tokens = await request.server.tokens.listForUser(caller.user.id);
      return respond(request, reply, {
        action: 'tokens.index',
        status: 'success',
        fields: { tokens },
        render: true,
      });
    },
  );

  const create = async (request: FastifyRequest, reply: FastifyReply) => {
    const services = request.server;
    const caller = requireAbility(request, 'tokens:create');
    const fields = new FieldReader(request.body);
    const name = fields.string('name', { required: true, min: 1, max: 100 });
    const abilities = readAbilities(fields);
    let expiresAt = readExpiresAt(fields, services.clock.now());
    if (caller.via === 'token' && caller.token.expires_at !== null && expiresAt !== undefined) {
      // A token cannot extend its own life by minting a longer-lived one.
      if (expiresAt === null) expiresAt = caller.token.expires_at;
      else if (expiresAt > caller.token.expires_at)
        fields.fail('expires_at', 'Expiry cannot be later than that of the token making the request.');
    }
    fields.throwIfInvalid();
    if (caller.via === 'token' && !coversAbilities(caller.token.abilities, abilities!)) {
      throw new ForbiddenError('A token can only create tokens with abilities it holds itself.');
    }

    const issued = await services.tokens.issue({
      userId: caller.user.id,
      name: name!,
      abilities: abilities!,
      expiresAt: expiresAt ?? null,
    });
    return respond(request, reply, {
      action: 'tokens.create',
      status: 'success',
      statusCode: 201,
      message: 'Token created. Copy it now: it will not be shown again.',
      fields: { token: issued.token, token_id: issued.record.id, name: issued.record.name },
      // Form clients see the page with the token on it, once; a redirect would lose it.
      render: true,
    });
  };
  const createOptions = {
    config: { action: 'tokens.create', page: tokensPage, pageProps: tokensPageProps },
    // The ability check first: a caller without it gets 401/403 before any sudo prompt.
    preHandler: [tokenCreator, requireSudo],
  };
  app.post('/tokens', createOptions, create);
  app.post('/tokens/create', createOptions, create);

  const revoke = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = requireAbility(request, 'tokens:delete');
    const id = parseTokenId((request.params as { id?: unknown }).id);
    // Someone else's token and no token at all look the same: ids reveal nothing.
    if (id === null || !(await request.server.tokens.revoke(caller.user.id, id))) {
      throw new NotFoundError('Token not found.');
    }
    return respond(request, reply, {
      action: 'tokens.revoke',
      status: 'success',
      message: 'Token revoked.',
      redirectTo: '/tokens',
    });
  };
  const revokeOptions = { config: { action: 'tokens.revoke' } };
  app.delete('/tokens/:id', revokeOptions, revoke);
  app.post('/tokens/revoke/:id', revokeOptions, revoke);
}

async function tokensPageProps(request: FastifyRequest): Promise<TokensPageProps> {
  const caller = request.caller;
  if (caller?.via !== 'session') return { tokens: [], needsSudo: false };
  const tokens = await request.server.tokens.listForUser(caller.user.id);
  // Creating asks for sudo; the page's link to it brings the browser back here afterwards.
  return { tokens, needsSudo: !(await isSudoActive(request)) };
}
