import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../core/clock.ts';
import { insertReturningId } from '../../db/insert.ts';
import type { UserRecord } from '../../http/caller.ts';

export { publicUser, type PublicUser, type UserRecord } from '../../http/caller.ts';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** The users table, for every module that needs a user: the only code that writes it. */
export class UserService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async findById(id: number): Promise<UserRecord | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
  }

  async findByUsername(username: string): Promise<UserRecord | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('username_normalized', '=', normalizeUsername(username))
      .executeTakeFirst();
  }

  /** Sign-in lookup: the identifier may be an email or a username, whichever field it came in. */
  async findByLogin(identifier: string): Promise<UserRecord | undefined> {
    const value = identifier.trim();
    if (value.includes('@')) return (await this.findByEmail(value)) ?? (await this.findByUsername(value));
    return (await this.findByUsername(value)) ?? (await this.findByEmail(value));
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

  async setPasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
  }

  async setActive(id: number, active: boolean): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ active: active ? 1 : 0, updated_at: this.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
  }
}
