import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/db/open.ts';
import type { Dialect } from '../../src/db/url.ts';
import {
  dropSessionEventInsertMigration,
  sessionEventInsertMigration,
} from '../../src/auth/account-center/session-event-migration.ts';
import { createTestDatabase } from './databases.ts';
import { legacyAccountCenterMigration, legacyCoreMigrations } from './legacy-migrations.ts';

/**
 * A new empty test database, opened below the typed schema as migrations see it. `cleanups` gets
 * what closes and drops it (run them in reverse order).
 */
export async function openRawDatabase(
  cleanups: (() => Promise<void>)[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- below the typed schema, as migrations are
): Promise<{ db: Kysely<any>; dialect: Dialect }> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const open = await openDatabase(database.url);
  cleanups.push(() => open.close());
  return { db: open.db, dialect: open.dialect };
}

/** The migrations of a database an earlier account center made: it created `security_events`, without a foreign key. */
export const earlierAccountCenterMigrations = [
  ...legacyCoreMigrations,
  legacyAccountCenterMigration,
  sessionEventInsertMigration,
  dropSessionEventInsertMigration,
];

/** A `users` row written directly, with no password. */
export const rawUserRow = (name: string, at: string) => ({
  username: name,
  username_normalized: name,
  email: `${name}@example.com`,
  password_hash: null,
  active: 1,
  created_at: at,
  updated_at: at,
});

/** A `security_events` row written directly. */
export const rawEventRow = (userId: number | null, type: string, at: string) => ({
  user_id: userId,
  type,
  ip: null,
  user_agent: null,
  detail: '{}',
  created_at: at,
});
