import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sha256Hex } from '../../crypto.ts';
import { Session } from './session.ts';
import { REMEMBER_COOKIE } from '../../auth/accounts/remember.ts';
import { resolveCaller } from '../caller.ts';

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

/** Set the remember-me cookie (or clear it with null). */
export function setRememberCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  value: { value: string; maxAge: number } | null,
) {
  const secure = request.server.citadel.config.secureCookies;
  if (value) reply.setCookie(REMEMBER_COOKIE, value.value, cookieOptions(secure, value.maxAge));
  else reply.clearCookie(REMEMBER_COOKIE, cookieOptions(secure));
}

async function loadSession(request: FastifyRequest): Promise<Session> {
  const { sessions } = request.server.citadel;
  const raw = request.cookies[SESSION_COOKIE];
  if (raw && raw.length <= 128) {
    const stored = await sessions.load(sha256Hex(raw));
    if (stored) return new Session(raw, stored.userId, stored.data, { expiresAt: stored.expiresAt });
  }
  return new Session(null, null, {}, { expiresAt: null });
}

/** A remember-me cookie signs the browser back in when its session has ended; it is rotated on use. */
async function restoreFromRememberCookie(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const services = request.server.citadel;
  const cookie = request.cookies[REMEMBER_COOKIE];
  if (!cookie || request.session.userId !== null || request.headers.authorization) return;
  const restored = await services.remember.consume(cookie);
  // A concurrent request of the same browser rotated the cookie first: leave the new one alone.
  if (restored === 'superseded') return;
  const user = restored ? await services.users.findById(restored.userId) : undefined;
  if (!restored || !user || user.active !== 1) {
    setRememberCookie(request, reply, null);
    return;
  }
  request.session.clear();
  request.session.setUser(user.id);
  setRememberCookie(request, reply, restored.cookie);
  const info = { method: 'remember' as const, rememberSelector: restored.cookie.value.split(':')[0] };
  for (const listener of services.signedInListeners) await listener(request, user, info);
}

/**
 * Sessions for every route: loaded from the cookie on request (no cookie, no lookup), the caller
 * resolved, and saved on send when anything changed or the idle expiry needs a refresh.
 */
export const sessionPlugin = fp(async function sessionPlugin(app: FastifyInstance) {
  app.decorateRequest('session', null as unknown as Session);
  app.decorateRequest('caller', null);

  app.addHook('onRequest', async (request, reply) => {
    request.session = await loadSession(request);
    await restoreFromRememberCookie(request, reply);
    // A bad bearer token throws (401); request.caller then keeps its default, null.
    request.caller = await resolveCaller(request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const session = request.session;
    if (!session) return payload;
    const { config, clock, sessions } = request.server.citadel;
    const now = clock.now().getTime();
    const expiresAt = new Date(now + config.limits.sessionIdleTtl * 1000).toISOString();
    const stale =
      session.cookieValue !== null &&
      session.expiresAt !== null &&
      new Date(session.expiresAt).getTime() - now < config.limits.sessionIdleTtl * 1000 - TOUCH_INTERVAL_MS;
    if (session.isDestroyed) {
      await session.save(sessions, expiresAt);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(config.secureCookies));
    } else if (session.isDirty || stale) {
      await session.save(sessions, expiresAt);
      reply.setCookie(SESSION_COOKIE, session.cookieValue!, cookieOptions(config.secureCookies));
    }
    return payload;
  });
});
