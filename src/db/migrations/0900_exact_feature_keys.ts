import { sql } from 'kysely';
import type { CitadelMigration } from './types.ts';
import { mysqlExactText } from '../columns.ts';

/**
 * The same fix as 0001_exact_keys, for the lookup keys of the feature modules' tables: on
 * MySQL/MariaDB a case-insensitive collation would let provider subject `AbC` find the identity of
 * `abc`, and passkey credential ids (base64url, case-sensitive) or pipeline claim keys collide.
 * Runs after the modules' own migrations (0100 to 0300); nothing to do on the other dialects.
 */
export const exactFeatureKeysMigration: CitadelMigration = {
  name: '0900_exact_feature_keys',
  async up(db, dialect) {
    if (dialect !== 'mysql') return;
    await sql`ALTER TABLE oauth_identities MODIFY provider ${mysqlExactText('varchar(64)')}, MODIFY subject ${mysqlExactText('varchar(191)')}`.execute(
      db,
    );
    await sql`ALTER TABLE passkeys MODIFY credential_id ${mysqlExactText('varchar(191)')}`.execute(db);
    await sql`ALTER TABLE magic_link_tokens MODIFY token_hash ${mysqlExactText('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE recovery_codes MODIFY code_hash ${mysqlExactText('varchar(64)')}`.execute(db);
    await sql`ALTER TABLE pipeline_claims MODIFY ${sql.ref('key')} ${mysqlExactText('varchar(191)')}`.execute(
      db,
    );
  },
};
