import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, HttpError } from '../../core/errors.ts';
import type { AnyDb } from '../request/context.ts';

/**
 * Idempotency-Key on POST (after the IETF draft "The Idempotency-Key HTTP
 * Header Field"). The key is claimed with one INSERT (a unique index on caller and key decides
 * between parallel requests); the finished response is stored with it for 24 hours. A repeat with
 * the same request replays it, with another request → 422, while the first still runs → 409.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const TABLE = 'api_idempotency_keys';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

class IdempotencyError extends HttpError {
  override name = 'IdempotencyError';
}

/** The Idempotency-Key of a request, checked (1-255 characters), or null without one. */
export function idempotencyKey(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return null;
  if (Array.isArray(value) || value.length < 1 || value.length > 255) {
    const reason = 'must be given once, 1 to 255 characters';
    throw new BadRequestError(`The Idempotency-Key header ${reason}.`, {
      invalidParams: [{ name: 'Idempotency-Key', reason }],
    });
  }
  return value;
}

/** Whose key it is: the signed-in user (session or token), else the client address. */
function callerOf(request: FastifyRequest, userId: number | null): string {
  return userId === null ? `ip:${request.ip}`.slice(0, 100) : `user:${userId}`;
}

interface StoredKey {
  id: unknown;
  request_hash: string;
  status: number | null;
  response: string | null;
  etag: string | null;
  expires_at: string;
}

export interface Claim {
  id: unknown;
}

export type Outcome = { replay: StoredKey } | { claim: Claim };

/**
 * Claim a key for this request, or say what to answer instead: the stored response (replay), 422
 * (another request under the key) or 409 (the first request under the key still runs).
 */
export async function claimKey(
  db: AnyDb,
  request: FastifyRequest,
  userId: number | null,
  key: string,
  body: unknown,
): Promise<Outcome> {
  const caller = callerOf(request, userId);
  const keyHash = sha256(key);
  const requestHash = sha256(`${request.method} ${request.routeOptions.url ?? ''}\n${JSON.stringify(body)}`);
  const now = request.server.clock.now();
  const nowText = now.toISOString();
  for (let attempt = 0; attempt < 2; attempt++) {
    let inserted = true;
    let failure: unknown;
    try {
      await db
        .insertInto(TABLE)
        .values({
          caller,
          key_hash: keyHash,
          request_hash: requestHash,
          created_at: nowText,
          expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
        })
        .execute();
    } catch (error) {
      // Most likely the unique index: someone holds the key (read below); else rethrown.
      inserted = false;
      failure = error;
    }
    if (inserted) {
      const row = (await db
        .selectFrom(TABLE)
        .select('id')
        .where('caller', '=', caller)
        .where('key_hash', '=', keyHash)
        .executeTakeFirstOrThrow()) as { id: unknown };
      // Expired keys of everyone go with each new claim (an index on expires_at keeps it cheap).
      await db.deleteFrom(TABLE).where('expires_at', '<', nowText).execute();
      return { claim: { id: row.id } };
    }
    const stored = (await db
      .selectFrom(TABLE)
      .select(['id', 'request_hash', 'status', 'response', 'etag', 'expires_at'])
      .where('caller', '=', caller)
      .where('key_hash', '=', keyHash)
      .executeTakeFirst()) as StoredKey | undefined;
    if (!stored) throw failure;
    if (stored.expires_at < nowText) {
      await db.deleteFrom(TABLE).where('id', '=', stored.id).where('expires_at', '<', nowText).execute();
      continue;
    }
    if (stored.request_hash !== requestHash)
      throw new IdempotencyError(422, 'This Idempotency-Key was used with another request.');
    if (stored.status === null)
      throw new IdempotencyError(409, 'A request with this Idempotency-Key is still being processed.');
    return { replay: stored };
  }
  throw new IdempotencyError(409, 'A request with this Idempotency-Key is still being processed.');
}

/** Store the response of a claimed key, for replays. */
export async function completeKey(
  db: AnyDb,
  claim: Claim,
  status: number,
  response: string,
  etag: string | null,
): Promise<void> {
  await db.updateTable(TABLE).set({ status, response, etag }).where('id', '=', claim.id).execute();
}

/** Free a key whose request failed: the client may send it again. */
export async function releaseKey(db: AnyDb, claim: Claim): Promise<void> {
  await db.deleteFrom(TABLE).where('id', '=', claim.id).execute();
}

export function replay(reply: FastifyReply, stored: StoredKey) {
  if (stored.etag) reply.header('etag', stored.etag);
  return reply
    .code(stored.status!)
    .header('idempotency-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(stored.response);
}
