import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sha256Hex } from '../../core/crypto.ts';
import { Session } from './session.ts';
import { insertCompanions, type LoadedSession } from './store.ts';
import { outageAs503, ServiceUnavailableError } from '../response/outage.ts';
import { AuthenticationRequiredError, HttpError, UNEXPECTED_ERROR_MESSAGE } from '../../core/errors.ts';
import { isForeignKeyViolation } from '../../db/errors.ts';
import { retryOnDeadlock } from '../../db/retry.ts';

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

const emptySession = () => new Session(null, null, {}, { expiresAt: null });

/** The request's session: without a session cookie, decided without a promise. */
function loadSession(request: FastifyRequest): Session | Promise<Session> {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw || raw.length > 128) return emptySession();
  const { sessions } = request.server;
  const idHash = sha256Hex(raw);
  const now = sessions.loadNow?.(idHash);
  if (now !== undefined) return sessionOf(raw, now);
  return sessions.load(idHash).then((stored) => sessionOf(raw, stored));
}

function sessionOf(raw: string, stored: LoadedSession | null): Session {
  return stored
    ? new Session(raw, stored.userId, stored.data, { expiresAt: stored.expiresAt }, stored.user)
    : emptySession();
}

/** Sessions whose save threw: the error answer that follows sends no cookie and saves nothing. */
const failedSaves = new WeakSet<Session>();
/** Ended sessions already committed (their row removed, the cookie cleared): nothing is left to do. */
const endedSessions = new WeakSet<Session>();

/** Thrown inside the transaction to roll the companions back when the session was not written. */
class SessionNotWritten extends Error {}

/**
 * Save the session and the rows that belong to its change (an event commits with its
 * change). On the database store, one transaction: the companions first, then the session write, so
 * a failing session write takes them back. On Redis, the session first, then the rows.
 */
async function saveWithCompanions(request: FastifyRequest, session: Session, expiresAt: string) {
  const { sessions, db } = request.server;
  const companions = session.takeCompanions();
  if (companions.length === 0) return session.save(sessions, expiresAt);
  // A session ended on purpose writes nothing and answers false; one ended meanwhile answers false too.
  const ending = session.isDestroyed;
  let saved: boolean;
  try {
    const replaced = session.replacedData;
    if (
      session.savesANewRow &&
      sessions.canInsertWithCompanions?.() &&
      sessions.insertWithCompanions &&
      // A replaced session its store's end watchers must hear of is removed by `destroy`.
      !(replaced && sessions.watches?.(replaced))
    ) {
      // PostgreSQL: one statement for the new session, the removal of the one it replaces and its
      // rows (a data-modifying WITH, store.ts).
      const insertWith = sessions.insertWithCompanions.bind(sessions);
      // A sign-in racing the account's deletion can be PostgreSQL's deadlock victim (it removes the
      // replaced session row, the deletion's cascade wants it): undone whole, so it runs again, and
      // then meets the deletion's outcome (the user's foreign key: 401).
      saved = await session.saveAsNewRow(expiresAt, (idHash, record, replaces) =>
        retryOnDeadlock(() => insertWith(idHash, record, companions, replaces)),
      );
    } else
      saved = await sessions.atomically(async (store, trx) => {
        if (!trx) {
          const written = await session.save(store, expiresAt);
          if (written || ending) await insertCompanions(db, companions);
          return written;
        }
        await insertCompanions(trx, companions);
        const written = await session.save(store, expiresAt);
        // Ended meanwhile by another request: what it would have recorded did not happen.
        if (!written && !ending) throw new SessionNotWritten();
        return written;
      });
  } catch (error) {
    if (error instanceof SessionNotWritten) return false;
    throw error;
  }
  for (const companion of companions) companion.afterCommit?.();
  return saved;
}

/**
 * Sessions for every route: loaded from the cookie on request (no cookie, no lookup) and stored
 * when anything changed or the idle expiry needs a refresh: by the auth adapter before a declared
 * endpoint's answer (`commitSession`), else on send. Who the caller is, the auth core decides in a
 * later onRequest hook.
 */
export const sessionPlugin = fp(async function sessionPlugin(app: FastifyInstance) {
  // A host application may have its own `request.session` (embedding): on Citadel's routes the
  // onRequest hook below sets Citadel's; declaring it twice would stop the host from starting.
  if (!app.hasRequestDecorator('session')) app.decorateRequest('session', null as unknown as Session);

  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.sessionless) return done();
    const loaded = loadSession(request);
    if (loaded instanceof Session) {
      request.session = loaded;
      return done();
    }
    loaded.then((session) => {
      request.session = session;
      done();
    }, done);
  });

  // What a declared endpoint changed is committed before its answer (`commitSession`, called by
  // the auth adapter); this hook stores what is left: the session changes of an error answer or of
  // a hand-written route, and the idle expiry's refresh. An error answer here goes out as it is.
  app.addHook('onSend', (request, reply, payload, done) => {
    // Nothing changed and the idle expiry needs no refresh (or it was committed): no work, no promise.
    const committed = commitSession(request, reply);
    if (!committed) return done(null, payload);
    committed.then(
      () => done(null, payload),
      (error: unknown) => {
        // An answer that is already an error goes out as it is (an outage's: any 5xx; a deleted
        // user's: any 4xx or 5xx).
        if (error instanceof ServiceUnavailableError && reply.statusCode >= 500) return done(null, payload);
        if (error instanceof AuthenticationRequiredError && reply.statusCode >= 400)
          return done(null, payload);
        done(error as Error);
      },
    );
  });
});

/** A stored session whose idle expiry is due for a refresh (at most once a TOUCH_INTERVAL_MS). */
function isStale(request: FastifyRequest, session: Session, now?: number): boolean {
  if (session.cookieValue === null || session.expiresAt === null) return false;
  const ttl = request.server.config.limits.sessionIdleTtl * 1000;
  const at = now ?? request.server.clock.now().getTime();
  return new Date(session.expiresAt).getTime() - at < ttl - TOUCH_INTERVAL_MS;
}

/**
 * Store what this request changed in its session (with the rows that go with the change, in one
 * transaction), or refresh its idle expiry, and set or clear the cookie to match. Runs before the
 * answer is sent; once done, nothing is left for the `onSend` hook. A failed save throws an error
 * of our own (503 outage, 401 when the session's user was deleted meanwhile, else 500), and the
 * session is not saved again for the error's answer.
 */
export function commitSession(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const session = request.session;
  if (!session || failedSaves.has(session) || endedSessions.has(session)) return;
  const now = request.server.clock.now().getTime();
  const stale = isStale(request, session, now);
  // Nothing changed and the idle expiry needs no refresh (most requests): no work, no promise.
  if (!session.isDirty && !session.isDestroyed && !stale) return;
  return storeSession(request, reply, session, now, stale);
}

async function storeSession(
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
  now: number,
  stale: boolean,
): Promise<void> {
  const expiresAt = new Date(now + request.server.config.limits.sessionIdleTtl * 1000).toISOString();
  try {
    await saveOnSend(request, reply, session, expiresAt, stale);
  } catch (error) {
    failedSaves.add(session);
    // Whatever is thrown here may reach Fastify's last-resort handler (when the answer is already
    // an error), which shows the error's own message: the driver's ("connect ECONNREFUSED
    // 127.0.0.1:…"). So only errors of our own leave this function.
    const outage = outageAs503(error as Error, request);
    if (outage instanceof ServiceUnavailableError) throw outage;
    // The session's user was deleted meanwhile (a sign-in racing the account's deletion: the new
    // session row and its event fail the user's foreign key, and neither is kept): the caller is
    // gone, 401.
    if (isForeignKeyViolation(error)) {
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request.server.config.secureCookies));
      throw new AuthenticationRequiredError();
    }
    request.log.error({ err: error }, 'session not saved');
    throw new HttpError(500, UNEXPECTED_ERROR_MESSAGE);
  }
}

/** Store what changed (or refresh the idle expiry) and set or clear the cookie to match. */
async function saveOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  session: Session,
  expiresAt: string,
  stale: boolean,
) {
  const { secureCookies } = request.server.config;
  if (session.isDestroyed) {
    await saveWithCompanions(request, session, expiresAt);
    endedSessions.add(session);
    reply.clearCookie(SESSION_COOKIE, cookieOptions(secureCookies));
  } else if (session.isDirty || stale) {
    if (await saveWithCompanions(request, session, expiresAt))
      reply.setCookie(SESSION_COOKIE, session.cookieValue!, cookieOptions(secureCookies));
    else {
      endedSessions.add(session);
      reply.clearCookie(SESSION_COOKIE, cookieOptions(secureCookies));
    }
  }
}
