import { TIMESTAMP, idColumn, longText, userIdColumn } from '../columns.ts';
import type { CitadelMigration } from './types.ts';

/** Users, sessions, remember-me, password resets, personal access tokens and rate-limit counters. */
export const coreMigration: CitadelMigration = {
  name: '0000_core',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('users'), dialect)
      .addColumn('username', 'varchar(64)', (c) => c.notNull())
      .addColumn('username_normalized', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('email', 'varchar(191)', (c) => c.notNull().unique())
      .addColumn('password_hash', 'varchar(255)')
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('data', longText(dialect), (c) => c.notNull())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
    await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute();

    await idColumn(db.schema.createTable('remember_tokens'), dialect)
      .addColumn('selector', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('validator_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('last_used_at', TIMESTAMP)
      .execute();
    await db.schema.createIndex('remember_tokens_user_id').on('remember_tokens').column('user_id').execute();

    await idColumn(db.schema.createTable('password_reset_tokens'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('password_reset_tokens_user_id')
      .on('password_reset_tokens')
      .column('user_id')
      .execute();

    await idColumn(db.schema.createTable('personal_access_tokens'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('abilities', 'text', (c) => c.notNull())
      .addColumn('last_used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('expires_at', TIMESTAMP)
      .execute();
    await db.schema
      .createIndex('personal_access_tokens_user_id')
      .on('personal_access_tokens')
      .column('user_id')
      .execute();

    await db.schema
      .createTable('rate_limits')
      .addColumn('key', 'varchar(191)', (c) => c.primaryKey())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('reset_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};
