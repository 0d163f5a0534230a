import { TIMESTAMP, idColumn, longText } from '../../src/migrations.ts';
import { createSearchIndex, dropSearchIndex, type CitadelMigration } from '../../src/index.ts';

/** The blog's tables. Timestamps are ISO strings like every Citadel table. */
export const blogMigration: CitadelMigration = {
  name: '0400_blog_posts_comments',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('posts'), dialect)
      .addColumn('title', 'varchar(200)', (c) => c.notNull())
      .addColumn('body', longText(dialect), (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('draft'))
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .addColumn('updated_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('posts_status_id').on('posts').columns(['status', 'id']).execute();
    await db.schema.createIndex('posts_author_id').on('posts').column('author_id').execute();
    await db.schema.createIndex('posts_created_at').on('posts').column('created_at').execute();

    await idColumn(db.schema.createTable('comments'), dialect)
      .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
      .addColumn('author_name', 'varchar(100)', (c) => c.notNull())
      .addColumn('body', longText(dialect), (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('comments_post_id').on('comments').column('post_id').execute();
  },
  async down(db) {
    await db.schema.dropTable('comments').execute();
    await db.schema.dropTable('posts').execute();
  },
};

/** A pinned flag and free tags (JSON text) on posts. */
export const blogPinnedTagsMigration: CitadelMigration = {
  name: '0401_blog_posts_pinned_tags',
  async up(db, dialect) {
    await db.schema
      .alterTable('posts')
      .addColumn('pinned', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema.alterTable('posts').addColumn('tags', longText(dialect)).execute();
  },
  async down(db) {
    await db.schema.alterTable('posts').dropColumn('tags').execute();
    await db.schema.alterTable('posts').dropColumn('pinned').execute();
  },
};

const postsSearch = { table: 'posts', columns: ['title', 'body'] };
const commentsSearch = { table: 'comments', columns: ['author_name', 'body'] };

/**
 * `search` on posts served by an index: FTS5 trigrams on SQLite, pg_trgm on PostgreSQL (nothing on
 * MariaDB, where the engine bounds the scan instead).
 */
export const blogSearchMigration: CitadelMigration = {
  name: '0402_blog_posts_search',
  async up(db, dialect) {
    await createSearchIndex(db, dialect, postsSearch);
    await createSearchIndex(db, dialect, commentsSearch);
  },
  async down(db, dialect) {
    await dropSearchIndex(db, dialect, commentsSearch);
    await dropSearchIndex(db, dialect, postsSearch);
  },
};

/** An index for every field the resources declare sortable (`citadel check --strict` passes). */
export const blogSortIndexesMigration: CitadelMigration = {
  name: '0403_blog_sort_indexes',
  async up(db) {
    await db.schema.createIndex('posts_title').on('posts').column('title').execute();
    await db.schema.createIndex('posts_pinned').on('posts').column('pinned').execute();
    await db.schema.createIndex('posts_updated_at').on('posts').column('updated_at').execute();
    await db.schema.createIndex('comments_created_at').on('comments').column('created_at').execute();
  },
  async down(db, dialect) {
    for (const [name, table] of [
      ['posts_title', 'posts'],
      ['posts_pinned', 'posts'],
      ['posts_updated_at', 'posts'],
      ['comments_created_at', 'comments'],
    ] as const) {
      const drop = db.schema.dropIndex(name);
      await (dialect === 'mysql' ? drop.on(table) : drop).execute();
    }
  },
};

const projectsSearch = { table: 'projects', columns: ['name', 'description'] };

/**
 * The organizations demo's projects, tenant-scoped: every index leads with
 * organization_id, since every read is `WHERE organization_id = ?` (`citadel check` says so).
 */
export const projectsMigration: CitadelMigration = {
  name: '0710_projects',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('projects'), dialect)
      // No foreign key: the organizations table is the plugin's; deleting an organization deletes its projects.
      .addColumn('organization_id', 'integer', (c) => c.notNull())
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('description', longText(dialect))
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    for (const column of ['id', 'name', 'created_at'])
      await db.schema
        .createIndex(`projects_organization_id_${column}`)
        .on('projects')
        .columns(['organization_id', column])
        .execute();
    await createSearchIndex(db, dialect, projectsSearch);
  },
  async down(db, dialect) {
    await dropSearchIndex(db, dialect, projectsSearch);
    await db.schema.dropTable('projects').execute();
  },
};

export const blogMigrations: CitadelMigration[] = [
  blogMigration,
  blogPinnedTagsMigration,
  blogSearchMigration,
  blogSortIndexesMigration,
  projectsMigration,
];
