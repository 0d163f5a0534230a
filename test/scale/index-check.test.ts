import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_CONFIG, runCitadel } from '../support/citadel-cli.ts';
import { sql } from 'kysely';
import { startBlogApp } from '../support/api-app.ts';
import { blogMigration, blogPinnedTagsMigration } from '../../examples/blog/migrations.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { compileApi } from '../../src/api/resource/compile.ts';
import { checkIndexes } from '../../src/api/read/index-check.ts';
import { openDatabase } from '../../src/db/open.ts';
import { TEST_SECRET } from '../support/app.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';

/** `citadel check` (issue 15, item 3): declared fields and relation keys without an index. */
const dialect = testDialect();

describe('index check', () => {
  it('the demo indexes everything it declares', async () => {
    const t = await startBlogApp();
    try {
      const report = await checkIndexes(t.db, dialect, compileApi(blogApi, dialect).values());
      expect(report.missing).toEqual([]);
      if (dialect === 'mysql') expect(report.notes.join('\n')).toContain('max_statement_time');
    } finally {
      await t.close();
    }
  });

  it('names each missing index with a statement that adds it (applied here, it clears the finding)', async () => {
    const t = await startBlogApp({ migrations: [blogMigration, blogPinnedTagsMigration] }); // the tables, not the later indexes
    try {
      const resources = [...compileApi(blogApi, dialect).values()];
      const before = await checkIndexes(t.db, dialect, resources);
      const found = before.missing.map((m) => `${m.resource} ${m.use} ${m.table}.${m.column}`);
      expect(found).toEqual(
        expect.arrayContaining([
          'posts sortable posts.title',
          'posts sortable posts.updated_at',
          'comments sortable comments.created_at',
        ]),
      );
      // Indexed already: the primary key, the filter on status (status, id), the relation keys.
      expect(found.join('\n')).not.toMatch(/posts\.id|posts\.status|comments\.post_id|users\.id/);
      if (dialect !== 'mysql') expect(found).toContain('posts searchable posts.title, body');
      const title = before.missing.find((m) => m.column === 'title')!;
      expect(title.statement).toBe('CREATE INDEX posts_title ON posts (title);');

      await sql.raw(title.statement).execute(t.db);
      const after = await checkIndexes(t.db, dialect, resources);
      expect(after.missing.map((m) => `${m.table}.${m.column}`)).not.toContain('posts.title');
      expect(after.missing).toHaveLength(before.missing.length - 1);
    } finally {
      await t.close();
    }
  });

  it('warns at start in development, once per missing index', async () => {
    let log = '';
    const logStream = new Writable({
      write(chunk, _encoding, callback) {
        log += chunk.toString();
        callback();
      },
    });
    const t = await startBlogApp({
      migrations: [blogMigration, blogPinnedTagsMigration],
      logger: undefined,
      logStream,
    });
    await t.close();
    expect(log).toContain('posts: sortable posts.title has no usable index');
    expect(log).toContain('CREATE INDEX posts_updated_at ON posts (updated_at);');
  });

  describe('citadel check on the command line', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => database?.drop());

    it('exits 0 when every index is there; with --strict, 1 when one is missing', async () => {
      const env = { DATABASE_URL: database.url, SESSION_SECRET: TEST_SECRET };
      const migrated = await runCitadel(['migrate', '--config', BLOG_CONFIG], env);
      expect(migrated.code, migrated.stderr).toBe(0);

      const clean = await runCitadel(['check', '--strict', '--config', BLOG_CONFIG], env);
      expect(clean.code, clean.stderr).toBe(0);
      expect(clean.stdout).toContain('every declared field and relation key has an index');

      const open = await openDatabase(database.url);
      await sql
        .raw(dialect === 'mysql' ? 'drop index posts_title on posts' : 'drop index posts_title')
        .execute(open.db);
      await open.close();

      const lenient = await runCitadel(['check', '--config', BLOG_CONFIG], env);
      expect(lenient.code).toBe(0);
      expect(lenient.stdout).toContain(
        'posts: sortable posts.title has no usable index; add it with: CREATE INDEX posts_title ON posts (title);',
      );
      const strict = await runCitadel(['check', '--strict', '--config', BLOG_CONFIG], env);
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain('posts.title');
    }, 180_000); // four runs of the real command line, each loading TypeScript through tsx
  });
});
