import type { UserRecord } from '../../plugin-api.ts';

/** How long a user row read for a service token answers for it in this process (milliseconds). */
export const USER_FRESH_MS = 1000;
/** Users kept at most (the least recently read go first). */
export const RECENT_USERS_SIZE = 10_000;

interface Entry {
  /** null: there is no such user (deleted). */
  user: UserRecord | null;
  readAt: number;
}

/**
 * The users of recent service tokens, each as read from the database less than a second ago, so
 * that a busy token costs no statement while a change made anywhere still stops it within a
 * second: every process reads the row again once its copy is a second old. A change made in this
 * process (disable, deletion, rename…: `UserService.changed`) drops the copy at once.
 */
export class RecentUsers {
  private readonly entries = new Map<number, Entry>();
  /** Bumped by each `forget`: a read that started before it must not store what it read. */
  private generation = 0;

  constructor(
    private readonly read: (userId: number) => Promise<UserRecord | undefined>,
    private readonly maxEntries = RECENT_USERS_SIZE,
    private readonly freshMs = USER_FRESH_MS,
  ) {}

  /** The user read less than `freshMs` before `nowMs` (null: none such), or undefined: read it. */
  peek(userId: number, nowMs: number): UserRecord | null | undefined {
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    // A clock set back (tests) counts as stale too.
    if (nowMs - entry.readAt >= this.freshMs || nowMs < entry.readAt) return undefined;
    return entry.user;
  }

  /** Read the user now and remember it from `nowMs`. */
  async load(userId: number, nowMs: number): Promise<UserRecord | null> {
    const generation = this.generation;
    const user = (await this.read(userId)) ?? null;
    if (generation === this.generation) this.remember(userId, { user, readAt: nowMs });
    return user;
  }

  /** Drop the copy of a user whose row changed. */
  forget(userId: number): void {
    this.generation++;
    this.entries.delete(userId);
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(userId: number, entry: Entry): void {
    // Re-inserted so that the map's order is the order of reads: the oldest goes first.
    this.entries.delete(userId);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(userId, entry);
  }
}
