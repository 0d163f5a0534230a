import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { insertReturningId } from '../../db/insert.ts';
import { isRowId } from '../../db/row-id.ts';
import type { UserRecord } from '../../http/security/caller.ts';

export { publicUser, type PublicUser, type UserRecord } from '../../http/security/caller.ts';

/** An email address as stored and compared: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A username as stored and compared: trimmed, lower case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/**
 * Whether an administrator's disabling of the account holds at `now` (an ISO timestamp): disabled
 * and not yet past `disabled_until`.
 */
export function isDisabled(user: Pick<UserRecord, 'disabled_at' | 'disabled_until'>, now: string): boolean {
  return user.disabled_at !== null && (user.disabled_until === null || user.disabled_until > now);
}

/** Runs a `select * from users` query: by default, the first row. */
export type ReadUser = (
  query: SelectQueryBuilder<Database, 'users', UserRecord>,
) => Promise<UserRecord | undefined>;
const takeFirst: ReadUser = (query) => query.executeTakeFirst();

/** Told the id of a user whose row changed (or went), after the change is committed. */
export type UserChangeListener = (userId: number) => void;

/** The users table, for every module that needs a user: the only code that writes it. */
export class UserService {
  private readonly changeListeners: UserChangeListener[] = [];
  /** Tells the other processes (Redis pub/sub, auth/core/user-changes.ts), when shared. */
  private broadcast: ((userId: number) => Promise<void>) | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Listen to changes of user rows, made in this process or heard from another (a cache of users
   * drops the user: the service tokens' callers).
   */
  onChange(listener: UserChangeListener): void {
    this.changeListeners.push(listener);
  }

  /** Send this process's changes to the other processes too (set once, at start). */
  shareChanges(broadcast: (userId: number) => Promise<void>): void {
    this.broadcast = broadcast;
  }

  /**
   * Say that a user's row changed or was deleted (after the commit: disable, deletion, rename…):
   * this process's listeners at once, then the other processes when changes are shared.
   */
  async changed(userId: number): Promise<void> {
    this.heard(userId);
    await this.broadcast?.(userId);
  }

  /** A change another process made: this process's listeners only. */
  heard(userId: number): void {
    for (const listener of this.changeListeners) listener(userId);
  }

  async findById(id: number): Promise<UserRecord | undefined> {
    // An id from a request may be one no row can have (a database error on PostgreSQL and MySQL).
    if (!isRowId(id)) return undefined;
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByEmail(email: string, read: ReadUser = takeFirst): Promise<UserRecord | undefined> {
    return read(this.db.selectFrom('users').selectAll().where('email', '=', normalizeEmail(email)));
  }

  async findByUsername(username: string, read: ReadUser = takeFirst): Promise<UserRecord | undefined> {
    return read(
      this.db.selectFrom('users').selectAll().where('username_normalized', '=', normalizeUsername(username)),
    );
  }

  /**
   * Sign-in lookup: the identifier may be an email or a username, whichever field it came in.
   * `read` runs the query (the sign-in reads its facts with the user: auth/core/sign-in-facts.ts).
   */
  async findByLogin(identifier: string, read: ReadUser = takeFirst): Promise<UserRecord | undefined> {
    const value = identifier.trim();
    if (value.includes('@'))
      return (await this.findByEmail(value, read)) ?? (await this.findByUsername(value, read));
    return (await this.findByUsername(value, read)) ?? (await this.findByEmail(value, read));
  }

  async create(input: {
    username: string;
    email: string;
    passwordHash: string | null;
    active: boolean;
  }): Promise<UserRecord> {
    const now = this.clock.now().toISOString();
    const id = await insertReturningId(this.db, 'users', {
      username: input.username.trim(),
      username_normalized: normalizeUsername(input.username),
      email: normalizeEmail(input.email),
      password_hash: input.passwordHash,
      active: input.active ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
    const user = await this.findById(id);
    if (!user) throw new Error('user vanished after insert');
    return user;
  }

  /** `db`: a transaction, when the change must commit together with something else. */
  async setPasswordHash(id: number, passwordHash: string, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
  }

  /** Addresses whose account becomes an administrator once it proves them (`ADMIN_EMAILS`). */
  private adminEmails: readonly string[] = [];

  /** Set at start by the admin plugin: listed addresses, once proved, make their account an admin. */
  grantAdminOnProof(emails: readonly string[]): void {
    this.adminEmails = emails.map(normalizeEmail).filter((email) => email !== '');
  }

  /** Whether an account proving `email` becomes an administrator. */
  isAdminEmail(email: string): boolean {
    return this.adminEmails.includes(normalizeEmail(email));
  }

  /**
   * The account just proved it receives mail at its address (activation, reset, magic link,
   * social sign-in, invitation): `email_verified_at`, and the admin role when the address is
   * listed in `ADMIN_EMAILS`. (An email change proves its new address in its own transaction,
   * with `isAdminEmail`.)
   */
  async markEmailVerified(id: number): Promise<void> {
    const now = this.clock.now().toISOString();
    await this.db.updateTable('users').set({ email_verified_at: now }).where('id', '=', id).execute();
    if (this.adminEmails.length === 0) return;
    const granted = await this.db
      .updateTable('users')
      .set({ role: 'admin', updated_at: now })
      .where('id', '=', id)
      .where('email', 'in', this.adminEmails)
      .where('role', '!=', 'admin')
      .executeTakeFirst();
    if (Number(granted.numUpdatedRows) > 0) await this.changed(id);
  }

  async setActive(id: number, active: boolean): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ active: active ? 1 : 0, updated_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
    await this.changed(id);
  }
}
