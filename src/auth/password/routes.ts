import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FieldReader } from '../../http/fields.ts';
import { respond } from '../../http/respond.ts';
import { requireSessionUser } from '../core/caller.ts';
import { setRememberCookie } from '../core/sessions.ts';
import { requireSudo } from '../sudo/guard.ts';
import { sudoFactorsFor } from '../sudo/eligible.ts';
import { readNewPassword } from '../accounts/password-rules.ts';
import { setPasswordPage } from './pages.ts';
import { changeWithEvent, originOf } from '../account-center/events.ts';
import { voidPendingEmailChanges } from '../account-center/email-change.ts';
import { notify } from '../account-center/notify.ts';
import { describeDevice } from '../account-center/device.ts';

/**
 * GET/POST /set-password: a user without a password (signed up with a provider) creates one; a user
 * who has one replaces it only in sudo mode. A first password needs sudo too when the user has any
 * factor (contract 13): otherwise whoever holds the session could set one and use it as a sudo proof.
 * Either way every other session of the account ends.
 * Session callers only: a bearer token never changes a password.
 */
export async function passwordRoutes(app: FastifyInstance): Promise<void> {
  const config = {
    action: 'password.set',
    page: setPasswordPage,
    pageProps: (request: FastifyRequest) => {
      const caller = request.caller;
      return { hasPassword: caller?.via === 'session' && caller.user.password_hash !== null };
    },
  };

  app.get('/set-password', { config: { ...config, action: 'password.show' } }, async (request, reply) => {
    const user = requireSessionUser(request);
    return respond(request, reply, {
      action: 'password.show',
      status: 'info',
      data: { has_password: user.password_hash !== null },
      render: true,
    });
  });

  app.post('/set-password', { config }, async (request, reply) => {
    const services = request.server;
    const user = requireSessionUser(request);
    const replacing = user.password_hash !== null;
    if (replacing || (await sudoFactorsFor(request, user)).length > 0) await requireSudo(request, reply);

    const fields = new FieldReader(request.body);
    const password = readNewPassword(fields, services.config.limits);
    fields.throwIfInvalid();
    const hash = await services.passwords.hash(password!);
    await changeWithEvent(
      services,
      { userId: user.id, type: 'password_changed', ...originOf(request), detail: { first: !replacing } },
      async (db) => {
        await services.users.setPasswordHash(user.id, hash, db);
        // A pending email change (perhaps asked for by whoever knew the old password) ends too.
        await voidPendingEmailChanges(db, user.id, services.clock.now());
      },
    );
    void notify(services, user, 'password_changed', {
      device: describeDevice(originOf(request).userAgent),
      ip: request.ip,
    });

    // Whoever else held a session or a remember-me cookie of this account is out; this browser
    // stays signed in, under a fresh session id.
    await services.sessions.destroyForUser(user.id, request.session.idHash ?? undefined);
    await services.remember.revokeAllForUser(user.id);
    setRememberCookie(request, reply, null);
    request.session.regenerate();
    return respond(request, reply, {
      action: 'password.set',
      status: 'success',
      message: replacing
        ? 'Your password was changed.'
        : 'Your password was set. You can now sign in with it.',
      data: { has_password: true },
      redirectTo: '/',
    });
  });
}
