import { sql } from 'kysely';
import type { CitadelMigration } from './types.ts';
import { mysqlExactText } from '../columns.ts';

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
    await sql`ALTER TABLE users MODIFY email ${mysqlExactText('varchar(191)')}, MODIFY username_normalized ${mysqlExactText('varchar(64)')}`.execute(
      db,
    );
    await sql`ALTER TABLE remember_tokens MODIFY selector ${mysqlExactText('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE password_reset_tokens MODIFY token_hash ${mysqlExactText('varchar(64)')}`.execute(
      db,
    );
    await sql`ALTER TABLE personal_access_tokens MODIFY token_hash ${mysqlExactText('varchar(64)')}`.execute(
      db,
    );
    await sql`ALTER TABLE rate_limits MODIFY ${sql.ref('key')} ${mysqlExactText('varchar(191)')}`.execute(db);
  },
};
