import { TIMESTAMP, idColumn, userIdColumn, type CitadelMigration } from '../../plugin-api.ts';

/** Organizations, their members and their invitations. */
export const organizationsMigration: CitadelMigration = {
  name: '0700_organizations',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('organizations'), dialect)
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('slug', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await idColumn(db.schema.createTable('organization_members'), dialect)
      .addColumn('organization_id', 'integer', (c) =>
        c.notNull().references('organizations.id').onDelete('cascade'),
      )
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('role', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addUniqueConstraint('organization_members_organization_user', ['organization_id', 'user_id'])
      .execute();
    await db.schema
      .createIndex('organization_members_user_id')
      .on('organization_members')
      .column('user_id')
      .execute();
    await idColumn(db.schema.createTable('organization_invitations'), dialect)
      .addColumn('organization_id', 'integer', (c) =>
        c.notNull().references('organizations.id').onDelete('cascade'),
      )
      .addColumn('email', 'varchar(191)', (c) => c.notNull())
      .addColumn('role', 'varchar(32)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('invited_by', 'integer', userIdColumn)
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('organization_invitations_organization_id')
      .on('organization_invitations')
      .column('organization_id')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('organization_invitations').execute();
    await db.schema.dropTable('organization_members').execute();
    await db.schema.dropTable('organizations').execute();
  },
};

/**
 * Emailed links proving that a signed-in account receives mail at its address, asked for from an
 * invitation to that address: the token only as its SHA-256, single use.
 */
export const organizationEmailProofsMigration: CitadelMigration = {
  name: '0701_organization_email_proofs',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('organization_email_proofs'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('email', 'varchar(191)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('used_at', TIMESTAMP)
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('organization_email_proofs_user_id')
      .on('organization_email_proofs')
      .column('user_id')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('organization_email_proofs').execute();
  },
};
