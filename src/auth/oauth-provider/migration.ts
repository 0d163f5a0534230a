import { TIMESTAMP, idColumn, longText, userIdColumn, type CitadelMigration } from '../../plugin-api.ts';

/**
 * The OAuth provider's clients, consents, grants, authorization codes, refresh tokens and pending
 * authorization requests. Secrets, codes and tokens are kept only as their SHA-256 (hex).
 */
export const oauthProviderMigration: CitadelMigration = {
  name: '0800_oauth_provider',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('oauth_clients'), dialect)
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('client_secret_hash', 'varchar(64)')
      .addColumn('client_name', 'varchar(200)', (c) => c.notNull())
      .addColumn('redirect_uris', longText(dialect), (c) => c.notNull())
      .addColumn('post_logout_redirect_uris', longText(dialect), (c) => c.notNull())
      .addColumn('application_type', 'varchar(10)', (c) => c.notNull())
      .addColumn('token_endpoint_auth_method', 'varchar(32)', (c) => c.notNull())
      .addColumn('scope', longText(dialect), (c) => c.notNull())
      .addColumn('id_token_signed_response_alg', 'varchar(10)', (c) => c.notNull())
      .addColumn('registration', 'varchar(10)', (c) => c.notNull())
      .addColumn('disabled_at', TIMESTAMP)
      .addColumn('secret_rotated_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();

    await idColumn(db.schema.createTable('oauth_consents'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('scope', longText(dialect), (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
      .addUniqueConstraint('oauth_consents_user_client', ['user_id', 'client_id'])
      .execute();

    await idColumn(db.schema.createTable('oauth_grants'), dialect)
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('scope', longText(dialect), (c) => c.notNull())
      .addColumn('resource', longText(dialect))
      .addColumn('auth_time', TIMESTAMP)
      .addColumn('amr', 'varchar(64)')
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('revoked_at', TIMESTAMP)
      .execute();
    await db.schema
      .createIndex('oauth_grants_user_client')
      .on('oauth_grants')
      .columns(['user_id', 'client_id'])
      .execute();
    await db.schema.createIndex('oauth_grants_client_id').on('oauth_grants').column('client_id').execute();

    await idColumn(db.schema.createTable('oauth_codes'), dialect)
      .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('grant_id', 'integer', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
      .addColumn('redirect_uri', longText(dialect), (c) => c.notNull())
      .addColumn('code_challenge', 'varchar(128)', (c) => c.notNull())
      .addColumn('nonce', longText(dialect))
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .execute();
    await db.schema.createIndex('oauth_codes_grant_id').on('oauth_codes').column('grant_id').execute();

    await idColumn(db.schema.createTable('oauth_refresh_tokens'), dialect)
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('grant_id', 'integer', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('oauth_refresh_tokens_grant_id')
      .on('oauth_refresh_tokens')
      .column('grant_id')
      .execute();

    // One authorization request waiting for its browser to sign in and consent: bound to the
    // browser by a random cookie (kept here as its SHA-256), ended by completion, denial, expiry
    // or sign-out.
    await idColumn(db.schema.createTable('oauth_pending_authorizations'), dialect)
      .addColumn('browser_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('request', longText(dialect), (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('oauth_pending_authorizations').execute();
    await db.schema.dropTable('oauth_refresh_tokens').execute();
    await db.schema.dropTable('oauth_codes').execute();
    await db.schema.dropTable('oauth_grants').execute();
    await db.schema.dropTable('oauth_consents').execute();
    await db.schema.dropTable('oauth_clients').execute();
  },
};
