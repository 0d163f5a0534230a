import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../db/url.ts';
import type { Database } from '../../db/schema.ts';
import { isoAfter, type Clock } from '../../core/clock.ts';
import { TooManyRequestsError } from '../../core/errors.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { isMariaDb } from '../../db/mariadb.ts';
import { retryOnDeadlock } from '../../db/retry.ts';

/** The `rate_limits.key` column holds 191 characters (the MySQL index limit). */
const MAX_STORED_KEY = 191;

/**
 * Keys carry user input (an identifier, an address) and can outgrow the column: a long key keeps a
 * readable head and ends in the SHA-256 of the whole key, so it stays unique and fits.
 */
export function storedLimitKey(key: string): string {
  if (key.length <= MAX_STORED_KEY) return key;
  return `${key.slice(0, MAX_STORED_KEY - 65)}#${sha256Hex(key)}`;
}

export interface LimitState {
  count: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/**
 * Fixed-window counters shared by every process (database or Redis), keyed by what is limited,
 * for example `login:ip:<ip>:<identifier>`.
 */
export interface RateLimitStore {
  /** Add one to the counter and return the new state. */
  hit(key: string, windowSeconds: number): Promise<LimitState>;
  /**
   * Add one to each of several distinct counters, each atomically (one statement where the
   * database can return every row's new count: SQLite, PostgreSQL, MariaDB); states in order.
   */
  hitMany(hits: readonly CounterHit[]): Promise<LimitState[]>;
  /** Read without counting. */
  peek(key: string): Promise<LimitState>;
  reset(key: string): Promise<void>;
  /** Give back one hit (never below zero), for an attempt that turned out not to count. */
  release(key: string): Promise<void>;
  /**
   * A success settles several counters at once (one statement on the database): each `release`
   * key gives back one hit, each `reset` key starts over.
   */
  settle(keys: { release: readonly string[]; reset: readonly string[] }): Promise<void>;
}

/** One counter to count, for `hitMany`. */
export interface CounterHit {
  key: string;
  windowSeconds: number;
}

/** Keys must be distinct: one statement cannot count a row twice (PostgreSQL refuses it). */
export function assertDistinctKeys(hits: readonly CounterHit[]): void {
  if (new Set(hits.map((h) => h.key)).size !== hits.length)
    throw new Error('hitMany: the same counter was named twice');
}

/** How many counted hits between two sweeps of ended windows. */
export const SWEEP_EVERY_HITS = 500;

interface NewCounter {
  key: string;
  count: number;
  reset_at: string;
}

interface CountedRow {
  key: string;
  count: number;
  reset_at: string | null;
}

export class DatabaseRateLimitStore implements RateLimitStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly options: {
      /**
       * On a MySQL-protocol server, whether one `RETURNING` upsert counts every counter (MariaDB
       * 10.5+). Asked of the server when not given; `false` runs MySQL's path (tests use it on MariaDB).
       */
      mysqlReturning?: boolean;
    } = {},
  ) {}

  private secondsUntil(iso: string): number {
    return Math.max(0, (new Date(iso).getTime() - this.clock.now().getTime()) / 1000);
  }

  async peek(rawKey: string): Promise<LimitState> {
    const key = storedLimitKey(rawKey);
    const row = await this.db
      .selectFrom('rate_limits')
      .select(['count', 'reset_at'])
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row || row.reset_at <= this.clock.now().toISOString()) return { count: 0, retryAfter: 0 };
    return { count: row.count, retryAfter: this.secondsUntil(row.reset_at) };
  }

  async hit(rawKey: string, windowSeconds: number): Promise<LimitState> {
    const [state] = await this.hitMany([{ key: rawKey, windowSeconds }]);
    return state!;
  }

  async hitMany(hits: readonly CounterHit[]): Promise<LimitState[]> {
    assertDistinctKeys(hits);
    if (hits.length === 0) return [];
    const now = this.clock.now().toISOString();
    const rows = hits.map((h) => ({
      key: storedLimitKey(h.key),
      count: 1,
      reset_at: isoAfter(this.clock, h.windowSeconds),
    }));
    const counted = await this.countRows(rows, now);
    await this.sweepNowAndThen(now, hits.length);
    return rows.map((row, i) => {
      const state = counted[i]!;
      return { count: state.count, retryAfter: this.secondsUntil(state.reset_at ?? row.reset_at) };
    });
  }

  /** The new count of each row, in order: one upsert where RETURNING has them, else one per row. */
  private async countRows(rows: readonly NewCounter[], now: string): Promise<CountedRow[]> {
    // Parallel upserts of the same keys can still deadlock on InnoDB (its insert-intention and
    // gap locks): rows go in key order, so they lock in one order, and a statement chosen as the
    // victim was undone whole (autocommit), so it runs again without counting twice.
    if (this.dialect !== 'mysql' || (this.options.mysqlReturning ?? (await isMariaDb(this.db)))) {
      const inKeyOrder = [...rows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const returned = await retryOnDeadlock(() => this.upsertReturning(inKeyOrder, now));
      const byKey = new Map(returned.map((r) => [r.key, r]));
      return rows.map((row) => byKey.get(row.key)!);
    }
    const counted: CountedRow[] = [];
    for (const row of rows)
      counted.push(await retryOnDeadlock(() => this.hitMysql(row.key, now, row.reset_at)));
    return counted;
  }

  /**
   * One statement counts: the upsert restarts an ended window or
   * adds one, and RETURNING gives each hit's own count, whatever runs concurrently (PostgreSQL,
   * SQLite; MariaDB 10.5+ returns the updated row of `ON DUPLICATE KEY UPDATE` too). Separate
   * delete, upsert and read steps over-counted and could fail on a concurrent reset.
   */
  private async upsertReturning(rows: readonly NewCounter[], now: string): Promise<CountedRow[]> {
    if (this.dialect === 'mysql') {
      // MariaDB applies SET assignments left to right: `count` is computed while `reset_at`
      // still holds the old window end, and `reset_at` after it reads the old value too.
      // Executed as compiled: Kysely's execute() drops RETURNING rows where its adapter says the
      // dialect has none (its MySQL adapter, though MariaDB has them).
      const ended = sql<boolean>`reset_at <= ${now}`;
      const compiled = this.db
        .insertInto('rate_limits')
        .values([...rows])
        .onDuplicateKeyUpdate({
          count: sql<number>`if(${ended}, 1, count + 1)`,
          reset_at: sql<string>`if(${ended}, values(reset_at), reset_at)`,
        })
        .returning(['key', 'count', 'reset_at'])
        .compile();
      return [...(await this.db.executeQuery<CountedRow>(compiled)).rows];
    }
    const ended = sql<boolean>`rate_limits.reset_at <= ${now}`;
    return this.db
      .insertInto('rate_limits')
      .values([...rows])
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`case when ${ended} then 1 else rate_limits.count + 1 end`,
          reset_at: sql<string>`case when ${ended} then excluded.reset_at else rate_limits.reset_at end`,
        }),
      )
      .returning(['key', 'count', 'reset_at'])
      .execute();
  }

  /**
   * MySQL has no RETURNING: the new count comes back through LAST_INSERT_ID(expr) in the
   * statement's own OK packet, so the hit stays one atomic statement (one per counter). A count of
   * 1 is a window that starts now; only a running window needs its end read back (for Retry-After).
   */
  private async hitMysql(key: string, now: string, resetAt: string): Promise<CountedRow> {
    const result = await this.db
      .insertInto('rate_limits')
      .values({ key, count: 1, reset_at: resetAt })
      .onDuplicateKeyUpdate({
        count: sql<number>`last_insert_id(if(reset_at <= ${now}, 1, count + 1))`,
        reset_at: sql<string>`if(reset_at <= ${now}, values(reset_at), reset_at)`,
      })
      .executeTakeFirstOrThrow();
    // 1 affected row: inserted; 2: an existing row updated (MySQL's convention).
    const count = Number(result.numInsertedOrUpdatedRows) === 1 ? 1 : Number(result.insertId);
    if (count === 1) return { key, count, reset_at: resetAt };
    const row = await this.db
      .selectFrom('rate_limits')
      .select('reset_at')
      .where('key', '=', key)
      .executeTakeFirst();
    return { key, count, reset_at: row?.reset_at ?? resetAt };
  }

  private hitsSinceSweep = 0;

  /** Windows that ended are otherwise only removed when their key comes back: sweep them regularly. */
  private async sweepNowAndThen(now: string, hits: number): Promise<void> {
    this.hitsSinceSweep += hits;
    if (this.hitsSinceSweep < SWEEP_EVERY_HITS) return;
    this.hitsSinceSweep = 0;
    await this.db.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
  }

  async reset(rawKey: string): Promise<void> {
    await this.db.deleteFrom('rate_limits').where('key', '=', storedLimitKey(rawKey)).execute();
  }

  async release(rawKey: string): Promise<void> {
    await this.db
      .updateTable('rate_limits')
      .set({ count: sql<number>`count - 1` })
      .where('key', '=', storedLimitKey(rawKey))
      .where('count', '>', 0)
      .execute();
  }

  /**
   * One UPDATE for every key: a reset key's count goes to 0 (the same as no row for hit and peek;
   * the sweep removes it when its window ends), a released key's count down by one.
   */
  async settle(keys: { release: readonly string[]; reset: readonly string[] }): Promise<void> {
    const reset = keys.reset.map(storedLimitKey);
    const release = keys.release.map(storedLimitKey).filter((key) => !reset.includes(key));
    if (reset.length + release.length === 0) return;
    const isReset =
      reset.length > 0 ? sql<boolean>`${sql.ref('key')} in (${sql.join(reset)})` : sql<boolean>`1 = 0`;
    await this.db
      .updateTable('rate_limits')
      .set({ count: sql<number>`case when ${isReset} then 0 else count - 1 end` })
      .where('key', 'in', [...reset, ...release])
      .where('count', '>', 0)
      .execute();
  }
}

export class RateLimiter {
  constructor(readonly store: RateLimitStore) {}

  /** Throw 429 when the counter already holds `max` hits in its window. */
  async check(key: string, max: number): Promise<void> {
    const state = await this.store.peek(key);
    if (state.count >= max) throw new TooManyRequestsError(state.retryAfter);
  }

  /** Count one hit; throw 429 when that hit goes over `max`. */
  async consume(key: string, max: number, windowSeconds: number): Promise<void> {
    const state = await this.store.hit(key, windowSeconds);
    if (state.count > max) throw new TooManyRequestsError(state.retryAfter);
  }

  async hit(key: string, windowSeconds: number): Promise<LimitState> {
    return this.store.hit(key, windowSeconds);
  }

  /** Count several distinct counters at once (one statement on most databases). */
  async hitMany(hits: readonly CounterHit[]): Promise<LimitState[]> {
    return this.store.hitMany(hits);
  }

  async reset(key: string): Promise<void> {
    await this.store.reset(key);
  }

  async release(key: string): Promise<void> {
    await this.store.release(key);
  }

  async settle(keys: { release?: readonly string[]; reset?: readonly string[] }): Promise<void> {
    await this.store.settle({ release: keys.release ?? [], reset: keys.reset ?? [] });
  }
}
