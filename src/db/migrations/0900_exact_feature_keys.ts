import { sql } from 'kysely';
import type { CitadelMigration } from './types.ts';
import { mysqlExactText } from '../columns.ts';

/**
 * The same fix as 0001_exact_keys, for the lookup keys of the built-in plugins' tables: on
 * MySQL/MariaDB a case-insensitive collation would let provider subject `AbC` find the identity of
 * `abc`, and passkey credential ids (base64url, case-sensitive) or pipeline claim keys collide.
 * Runs after the plugins' own migrations (0100 to 0300); nothing to do on the other dialects.
 * Written before capabilities became plugins: a server without one of them has no such table, so
 * each change applies only where its table exists.
 */
export const exactFeatureKeysMigration: CitadelMigration = {
  name: '0900_exact_feature_keys',
  async up(db, dialect) {
    if (dialect !== 'mysql') return;
    const tables = new Set((await db.introspection.getTables()).map((table) => table.name));
    if (tables.has('oauth_identities'))
      await sql`ALTER TABLE oauth_identities MODIFY provider ${mysqlExactText('varchar(64)')}, MODIFY subject ${mysqlExactText('varchar(191)')}`.execute(
        db,
      );
    if (tables.has('passkeys'))
      await sql`ALTER TABLE passkeys MODIFY credential_id ${mysqlExactText('varchar(191)')}`.execute(db);
    if (tables.has('magic_link_tokens'))
      await sql`ALTER TABLE magic_link_tokens MODIFY token_hash ${mysqlExactText('varchar(64)')}`.execute(db);
    if (tables.has('recovery_codes'))
      await sql`ALTER TABLE recovery_codes MODIFY code_hash ${mysqlExactText('varchar(64)')}`.execute(db);
    if (tables.has('pipeline_claims'))
      await sql`ALTER TABLE pipeline_claims MODIFY ${sql.ref('key')} ${mysqlExactText('varchar(191)')}`.execute(
        db,
      );
  },
};
