import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FieldReader } from '../../http/fields.ts';
import { respond } from '../../http/respond.ts';
import { clientKind } from '../../http/negotiation.ts';
import { NotFoundError } from '../../core/errors.ts';
import { publicUser } from '../core/users.ts';
import { limitEmailSends } from '../core/send-limits.ts';
import { beginSignIn } from '../pipeline/runner.ts';
import { assertMaySignIn } from '../accounts/login.ts';
import { respondToSignIn } from '../pipeline/sign-in-response.ts';
import { consumeMagicLink, sendMagicLink } from './tokens.ts';
import { magicLinkPage, magicLinkSentPage } from './pages.ts';

const INVALID_LINK = 'This sign-in link is invalid, was already used or has expired.';

/** Sign-in by an emailed single-use link. */
export async function magicLinkRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/magic-link',
    { config: { action: 'magic_link.show', page: magicLinkPage } },
    async (request, reply) =>
      respond(request, reply, { action: 'magic_link.show', status: 'info', render: true }),
  );

  app.get(
    '/magic-link/sent',
    {
      config: {
        action: 'magic_link.sent',
        page: magicLinkSentPage,
        pageProps: (request) => ({ linkMinutes: Math.round(request.server.config.limits.magicLinkTtl / 60) }),
      },
    },
    async (request, reply) =>
      respond(request, reply, { action: 'magic_link.sent', status: 'info', render: true }),
  );

  app.post(
    '/magic-link',
    { config: { action: 'magic_link.send', page: magicLinkPage } },
    async (request, reply) => {
      const services = request.server;
      const fields = new FieldReader(request.body);
      const email = fields.email('email', { required: true });
      fields.throwIfInvalid();
      await limitEmailSends(request, 'magic-link', email);
      // Sent after the response is on its way: the answer and its timing are the same for any address.
      void sendMagicLink(services, email!).catch((error: unknown) =>
        request.log.error({ err: error }, 'could not send the magic link email'),
      );
      return respond(request, reply, {
        action: 'magic_link.send',
        status: 'success',
        message: 'If that address belongs to an account, a sign-in link is on its way.',
        // Browsers go on to the "check your email" page; API clients get the contract's path.
        redirectTo: clientKind(request) === 'form' ? '/magic-link/sent' : '/magic-link',
      });
    },
  );

  const verify = async (request: FastifyRequest, reply: FastifyReply, token: unknown) => {
    const services = request.server;
    const user = typeof token === 'string' ? await consumeMagicLink(services, token) : undefined;
    if (!user) throw new NotFoundError(INVALID_LINK, { redirectTo: '/magic-link' });
    assertMaySignIn(services, user);
    // The link was read in the account's mailbox.
    await services.users.markEmailVerified(user.id);
    const result = await beginSignIn(request, reply, user, { purpose: 'login', remember: false });
    return respondToSignIn(
      request,
      reply,
      result,
      {
        action: 'magic_link.verify',
        status: 'success',
        message: 'You are signed in.',
        user: publicUser(request.caller?.user ?? user),
        redirectTo: '/',
      },
      'magic_link.action_required',
    );
  };

  app.get<{ Params: { token: string } }>(
    '/magic-link/verify/:token',
    { config: { action: 'magic_link.verify', secrets: ['token'] } },
    async (request, reply) => verify(request, reply, request.params.token),
  );
  app.get<{ Querystring: { token?: unknown } }>(
    '/magic-link/verify',
    { config: { action: 'magic_link.verify', secrets: ['token'] } },
    async (request, reply) => verify(request, reply, request.query.token),
  );
}
