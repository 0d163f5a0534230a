import { once, withParameters } from '../../db/compiled.ts';
import { readNow } from '../../db/read-now.ts';
import { RecentRows } from '../../db/recent-rows.ts';
import { deepFreeze } from '../../core/deep-freeze.ts';
import { writeGeneration } from '../../db/write-watch.ts';
import type { UserRecord } from '../../http/security/caller.ts';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database, PersonalAccessTokensTable } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { insertReturningId } from '../../db/insert.ts';
import type { TokenRecord } from '../../http/security/caller.ts';
import { generateTokenString, isWellFormedToken } from './token-format.ts';

type TokenRow = Selectable<PersonalAccessTokensTable>;

export type { TokenRecord } from '../../http/security/caller.ts';

export interface IssuedToken {
  /** The plain token: returned once, never stored. */
  token: string;
  record: TokenRecord;
}

export interface VerifiedToken {
  record: TokenRecord;
  userId: number;
  /** The owner, read in the same statement as the token. */
  user: UserRecord;
}

function toRecord(
  row: Pick<
    TokenRow,
    'id' | 'name' | 'abilities' | 'last_used_at' | 'created_at' | 'expires_at' | 'organization_id'
  >,
): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    abilities: JSON.parse(row.abilities) as string[],
    last_used_at: row.last_used_at,
    created_at: row.created_at,
    expires_at: row.expires_at,
    organization_id: row.organization_id === null ? null : Number(row.organization_id),
  };
}

type VerifyRow =
  ReturnType<PersonalAccessTokens['verifyQuery']> extends CompiledQuery<infer Row> ? Row : never;

/**
 * The token and its owner of a row of `verifyQuery`, frozen: while it is kept in memory, requests
 * share it, and a change to it throws.
 */
function verifiedOf(joined: VerifyRow): VerifiedToken {
  const {
    token_id,
    token_user_id,
    token_name,
    token_abilities,
    token_last_used_at,
    token_created_at,
    token_expires_at,
    token_organization_id,
    ...user
  } = joined;
  const record = toRecord({
    id: token_id,
    name: token_name,
    abilities: token_abilities,
    last_used_at: token_last_used_at,
    created_at: token_created_at,
    expires_at: token_expires_at,
    organization_id: token_organization_id,
  });
  return deepFreeze({ record, userId: token_user_id, user: user as UserRecord });
}

/** Personal access tokens: issue, verify (the bearer guard's lookup), list and revoke. */
export class PersonalAccessTokens {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly lastUsedIntervalSeconds: number,
  ) {
    const writes = writeGeneration(db);
    this.recent = writes && new RecentRows<VerifiedToken>(writes);
  }

  /**
   * Tokens read in the last second, while this process wrote no token or user since
   * (recent-rows.ts): a busy token costs no statement. Expiry is checked on every use.
   */
  private readonly recent: RecentRows<VerifiedToken> | undefined;

  async issue(
    input: {
      userId: number;
      name: string;
      abilities: string[];
      expiresAt: string | null;
      organizationId?: number | null;
    },
    db: Kysely<Database> = this.db,
  ): Promise<IssuedToken> {
    const token = generateTokenString();
    const createdAt = this.clock.now().toISOString();
    const row = {
      user_id: input.userId,
      name: input.name,
      token_hash: sha256Hex(token),
      abilities: JSON.stringify(input.abilities),
      last_used_at: null,
      created_at: createdAt,
      expires_at: input.expiresAt,
      organization_id: input.organizationId ?? null,
    };
    const id = await insertReturningId(db, 'personal_access_tokens', row);
    return { token, record: toRecord({ id, ...row }) };
  }

  /**
   * The token's record and owner when the string is well formed, known and not expired; else null.
   * Lookup is by SHA-256, so the database never sees or compares the secret itself.
   */
  /**
   * The token and its owner in one statement (every bearer request asks for both), compiled once:
   * its only parameter is the token's hash.
   */
  private verifyQuery = once(() =>
    this.db
      .selectFrom('personal_access_tokens as t')
      .innerJoin('users', 'users.id', 't.user_id')
      .selectAll('users')
      .select([
        't.id as token_id',
        't.user_id as token_user_id',
        't.name as token_name',
        't.abilities as token_abilities',
        't.last_used_at as token_last_used_at',
        't.created_at as token_created_at',
        't.expires_at as token_expires_at',
        't.organization_id as token_organization_id',
      ])
      .where('t.token_hash', '=', '')
      .compile(),
  );

  async verify(token: string): Promise<VerifiedToken | null> {
    if (!isWellFormedToken(token)) return null;
    const hash = sha256Hex(token);
    let found = this.recent?.get(hash);
    if (found === undefined) {
      const stamp = this.recent?.stamp();
      const query = withParameters(this.verifyQuery(), [hash]);
      const [joined] = readNow(this.db, query) ?? (await this.db.executeQuery(query)).rows;
      if (!joined) return null;
      found = verifiedOf(joined);
      if (stamp !== undefined) this.recent!.set(hash, found, stamp);
    }
    const now = this.clock.now();
    const { record } = found;
    if (record.expires_at !== null && record.expires_at <= now.toISOString()) return null;
    await this.touch(record.id, record.last_used_at, now);
    return found;
  }

  /** Write last_used_at at most once per interval: a busy token must not mean a write per request. */
  private async touch(id: number, lastUsedAt: string | null, now: Date): Promise<void> {
    const threshold = new Date(now.getTime() - this.lastUsedIntervalSeconds * 1000).toISOString();
    if (lastUsedAt !== null && lastUsedAt > threshold) return;
    await this.db
      .updateTable('personal_access_tokens')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', threshold)]))
      .execute();
  }

  async listForUser(userId: number): Promise<TokenRecord[]> {
    const rows = await this.db
      .selectFrom('personal_access_tokens')
      .select(['id', 'name', 'abilities', 'last_used_at', 'created_at', 'expires_at', 'organization_id'])
      .where('user_id', '=', userId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toRecord);
  }

  /** Revoke one of the user's tokens; false when it is unknown or someone else's. */
  async revoke(userId: number, tokenId: number, db: Kysely<Database> = this.db): Promise<boolean> {
    const result = await db
      .deleteFrom('personal_access_tokens')
      .where('id', '=', tokenId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
