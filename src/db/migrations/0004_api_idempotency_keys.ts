import type { CitadelMigration } from './types.ts';
import { idColumn, longText, TIMESTAMP } from '../columns.ts';

/**
 * Idempotency keys of resource API POSTs: one row per caller and key (the
 * key's SHA-256, so that case-insensitive collations cannot merge two keys), the hash of the
 * request it came with, and once it finished the response to replay, for 24 hours.
 */
export const apiIdempotencyKeysMigration: CitadelMigration = {
  name: '0004_api_idempotency_keys',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('api_idempotency_keys'), dialect)
      .addColumn('caller', 'varchar(100)', (c) => c.notNull())
      .addColumn('key_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('response', longText(dialect))
      .addColumn('etag', 'varchar(64)')
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addUniqueConstraint('api_idempotency_keys_caller_key', ['caller', 'key_hash'])
      .execute();
    await db.schema
      .createIndex('api_idempotency_keys_expires_at')
      .on('api_idempotency_keys')
      .column('expires_at')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('api_idempotency_keys').execute();
  },
};
