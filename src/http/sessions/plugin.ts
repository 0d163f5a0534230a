import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sha256Hex } from '../../core/crypto.ts';
import { Session } from './session.ts';
import { isOutageError, ServiceUnavailableError } from '../outage.ts';

export const SESSION_COOKIE = 'citadel_session';

/** Refresh the idle expiry at most this often, so a busy session is not a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export function cookieOptions(secure: boolean, maxAge?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure,
    ...(maxAge !== undefined ? { maxAge } : {}),
  };
}

async function loadSession(request: FastifyRequest): Promise<Session> {
  const { sessions } = request.server;
  const raw = request.cookies[SESSION_COOKIE];
  if (raw && raw.length <= 128) {
    const stored = await sessions.load(sha256Hex(raw));
    if (stored) return new Session(raw, stored.userId, stored.data, { expiresAt: stored.expiresAt });
  }
  return new Session(null, null, {}, { expiresAt: null });
}

/**
 * Sessions for every route: loaded from the cookie on request (no cookie, no lookup) and saved on
 * send when anything changed or the idle expiry needs a refresh. Who the caller is, the auth core
 * decides in a later onRequest hook.
 */
export const sessionPlugin = fp(async function sessionPlugin(app: FastifyInstance) {
  // A host application may have its own `request.session` (embedding): on Citadel's routes the
  // onRequest hook below sets Citadel's; declaring it twice would stop the host from starting.
  if (!app.hasRequestDecorator('session')) app.decorateRequest('session', null as unknown as Session);

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.sessionless) return;
    request.session = await loadSession(request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const session = request.session;
    if (!session) return payload;
    const { config, clock, sessions } = request.server;
    const now = clock.now().getTime();
    const expiresAt = new Date(now + config.limits.sessionIdleTtl * 1000).toISOString();
    const stale =
      session.cookieValue !== null &&
      session.expiresAt !== null &&
      new Date(session.expiresAt).getTime() - now < config.limits.sessionIdleTtl * 1000 - TOUCH_INTERVAL_MS;
    try {
      if (session.isDestroyed) {
        await session.save(sessions, expiresAt);
        reply.clearCookie(SESSION_COOKIE, cookieOptions(config.secureCookies));
      } else if (session.isDirty || stale) {
        if (await session.save(sessions, expiresAt))
          reply.setCookie(SESSION_COOKIE, session.cookieValue!, cookieOptions(config.secureCookies));
        else reply.clearCookie(SESSION_COOKIE, cookieOptions(config.secureCookies));
      }
    } catch (error) {
      if (!isOutageError(error)) throw error;
      // The store went away between the answer and its write-back. An answer that is already an
      // error goes out as it is: an error thrown here would reach Fastify's last-resort handler,
      // which shows the driver's message (host and port). Any other answer becomes a 503, since
      // the session it relies on was not kept.
      request.log.warn(
        { err: { message: (error as Error).message } },
        'session not saved: store unavailable',
      );
      if (reply.statusCode >= 500) return payload;
      throw new ServiceUnavailableError();
    }
    return payload;
  });
});
