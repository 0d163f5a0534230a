import { sql } from 'kysely';
import type { CitadelMigration } from './types.ts';

/**
 * MySQL/MariaDB compare strings by the column's collation, usually case- and accent-insensitive
 * (utf8mb4_unicode_ci): `jose@example.com` would find the account of `josé@example.com`. Lookup keys
 * are normalised in code already, so they get a binary collation: equal means byte-for-byte equal,
 * as on PostgreSQL and SQLite. Nothing to do on the other dialects.
 */
export const exactKeysMigration: CitadelMigration = {
  name: '0001_exact_keys',
  async up(db, dialect) {
    if (dialect !== 'mysql') return;
    const binary = (type: string) => sql.raw(`${type} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`);
    await sql`ALTER TABLE users MODIFY email ${binary('varchar(191)')}, MODIFY username_normalized ${binary('varchar(64)')}`.execute(
      db,
    );
    await sql`ALTER TABLE remember_tokens MODIFY selector ${binary('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE password_reset_tokens MODIFY token_hash ${binary('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE personal_access_tokens MODIFY token_hash ${binary('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE rate_limits MODIFY ${sql.ref('key')} ${binary('varchar(191)')}`.execute(db);
  },
};
