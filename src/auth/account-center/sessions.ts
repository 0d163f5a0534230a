import {
  type CitadelServices,
  type SignedInInfo,
  type SessionData,
  randomToken,
  describeDevice,
  type RequestContext,
} from '../../plugin-api.ts';

/** Where a session keeps what the device list shows. Lives in the session data, so both stores have it. */
export const SESSION_META_KEY = 'account_session';

/** last_seen_at is written at most this often per session. */
export const LAST_SEEN_INTERVAL_MS = 60_000;

export interface SessionMeta {
  /** Opaque random handle: what the list shows and revoke takes. Never the cookie or its hash. */
  handle: string;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  remembered: boolean;
  /** This device's remember-me row, ended together with the session. */
  remember_selector: string | null;
}

export interface SessionView {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  device: string;
  remembered: boolean;
}

function userAgentOf(request: RequestContext): string | null {
  return request.userAgent === null ? null : request.userAgent.slice(0, 512);
}

export function readMeta(data: SessionData): SessionMeta | undefined {
  const meta = data[SESSION_META_KEY] as SessionMeta | undefined;
  return meta && typeof meta === 'object' && typeof meta.handle === 'string' ? meta : undefined;
}

/** This request's own session facts, if it is signed in. */
export function currentMeta(request: RequestContext): SessionMeta | null {
  if (request.session.userId === null) return null;
  return readMeta({ [SESSION_META_KEY]: request.session.get(SESSION_META_KEY) }) ?? null;
}

export function currentHandle(request: RequestContext): string | null {
  return currentMeta(request)?.handle ?? null;
}

/** A signed-in listener: every new session gets its handle and device facts. */
export function startSessionMeta(request: RequestContext, info: SignedInInfo): SessionMeta {
  const now = request.services.clock.now().toISOString();
  const meta: SessionMeta = {
    handle: randomToken(16),
    created_at: now,
    last_seen_at: now,
    ip: request.ip,
    user_agent: userAgentOf(request),
    remembered: info.rememberSelector !== undefined,
    remember_selector: info.rememberSelector ?? null,
  };
  request.session.set(SESSION_META_KEY, meta);
  return meta;
}

/**
 * Every request of a signed-in session: note when it was last seen, at most once a minute (the
 * write rides on the session save). Sessions older than this feature get their facts now.
 */
export function touchSession(request: RequestContext): void {
  const session = request.session;
  if (!session || session.userId === null) return;
  const meta = readMeta({ [SESSION_META_KEY]: session.get(SESSION_META_KEY) });
  if (!meta) {
    startSessionMeta(request, { method: 'sign_in' });
    return;
  }
  const now = request.services.clock.now();
  if (now.getTime() - new Date(meta.last_seen_at).getTime() < LAST_SEEN_INTERVAL_MS) return;
  session.set(SESSION_META_KEY, { ...meta, last_seen_at: now.toISOString(), ip: request.ip });
}

/** The user's live sessions, newest first, the current one marked. */
export async function listSessions(
  services: CitadelServices,
  userId: number,
  current: SessionMeta | null,
): Promise<SessionView[]> {
  const stored = await services.sessions.listForUser(userId);
  const views: SessionView[] = [];
  for (const s of stored) {
    let meta = readMeta(s.data);
    if (!meta) continue;
    // This request's own copy is newer than the stored one (its last-seen is saved after the answer).
    if (current && meta.handle === current.handle) meta = current;
    views.push({
      id: meta.handle,
      current: meta.handle === current?.handle,
      created_at: meta.created_at,
      last_seen_at: meta.last_seen_at,
      ip: meta.ip,
      user_agent: meta.user_agent,
      device: describeDevice(meta.user_agent),
      remembered: meta.remembered,
    });
  }
  return views.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** End one session (by handle) and its remember-me row. Returns what it ended, or null when unknown. */
export async function revokeSessionByHandle(
  services: CitadelServices,
  userId: number,
  handle: string,
): Promise<{ idHash: string; meta: SessionMeta } | null> {
  for (const s of await services.sessions.listForUser(userId)) {
    const meta = readMeta(s.data);
    if (!meta || meta.handle !== handle) continue;
    await endStoredSession(services, userId, s.idHash, meta);
    return { idHash: s.idHash, meta };
  }
  return null;
}

/** End every session of the user but the current one, with their remember-me rows. */
export async function revokeOtherSessions(
  services: CitadelServices,
  userId: number,
  currentHandle: string | null,
): Promise<number> {
  let count = 0;
  let keepSelector: string | null = null;
  for (const s of await services.sessions.listForUser(userId)) {
    const meta = readMeta(s.data);
    if (meta && meta.handle === currentHandle) {
      keepSelector = meta?.remember_selector ?? null;
      continue;
    }
    await endStoredSession(services, userId, s.idHash, meta);
    count += 1;
  }
  // Remember-me rows of devices whose session already ended would sign them back in: they go too.
  let others = services.db.deleteFrom('remember_tokens').where('user_id', '=', userId);
  if (keepSelector) others = others.where('selector', '!=', keepSelector);
  await others.execute();
  return count;
}

async function endStoredSession(
  services: CitadelServices,
  userId: number,
  idHash: string,
  meta: SessionMeta | undefined,
): Promise<void> {
  await services.sessions.destroy(idHash);
  if (meta?.remember_selector) {
    await services.db
      .deleteFrom('remember_tokens')
      .where('selector', '=', meta.remember_selector)
      .where('user_id', '=', userId)
      .execute();
  }
}
