import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientKind } from '../../http/request/negotiation.ts';
import { envelope, renderPage } from '../../http/response/respond.ts';
import { invitationProps } from './invitations.ts';
import { invitationPage } from './pages.ts';

/**
 * GET /organizations/invitations/{token}, the emailed link: a page whose button accepts it
 * (opening the link changes nothing: mail scanners open links). Registered by hand rather than
 * declared: it is a browser page, and as an OpenAPI path it would be ambiguous with
 * `/organizations/{id}/invitations`. The token (and `proof`, from the mail that proves an address) are
 * secrets in the logs.
 */
export function invitationLink(app: FastifyInstance): void {
  const props = (request: FastifyRequest) =>
    invitationProps(
      request.server.citadel,
      (request.params as { token: string }).token,
      request.caller,
      (request.query as { proof?: unknown } | undefined)?.proof,
    );
  app.get(
    '/organizations/invitations/:token',
    { config: { secrets: ['token', 'proof'], pageProps: props } },
    async (request, reply) => {
      if (clientKind(request) === 'form') return renderPage(request, reply, invitationPage);
      const found = (await props(request)).organization !== null;
      return reply.code(found ? 200 : 404).send(
        envelope({
          action: 'organizations.invitation',
          status: found ? 'info' : 'error',
          statusCode: found ? 200 : 404,
          message: found
            ? 'Accept with POST /organizations/invitations/accept {token}.'
            : 'This invitation is invalid, was already used or has expired.',
        }),
      );
    },
  );
}
