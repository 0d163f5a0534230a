/**
 * `citadel check --strict` passes on the docs' runnable examples: the demo the README serves
 * (examples/blog), and the notes table of
 * docs/build-your-app.md section 3 (its migration and indexes) with the resource of section 4,
 * migrated by `citadel migrate`, on each dialect. A sortable or searchable field declared without
 * its index fails it (the test also runs the check with the indexes left out).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOG_CONFIG, runCitadel } from '../support/citadel-cli.ts';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.ts';
import { TEST_SECRET } from '../support/app.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, '.test-output/docs-examples-check');
const ENTRIES: Record<string, string> = {
  citadel: 'src/index.ts',
  'citadel/migrations': 'src/migrations.ts',
};

/** Sections 3 and 4 of docs/build-your-app.md as one `citadel.config.ts`. */
function notesConfig(edit: (code: string) => string = (code) => code): string {
  const text = readFileSync(join(ROOT, 'docs/build-your-app.md'), 'utf8');
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  const migration = blocks.find((code) => code.startsWith('// migrations/'))!;
  const resources = blocks.find((code) => code.includes('createApi('))!;
  const code = [
    migration.replace('export default migration;', ''),
    resources,
    "import { defineConfig } from 'citadel';",
    'export default defineConfig({ api, migrations: [migration] });',
  ].join('\n');
  return edit(code).replace(
    /from '(citadel(?:\/\w+)?)'/g,
    (_, name: string) => `from '${join(ROOT, ENTRIES[name]!)}'`,
  );
}

describe('citadel check --strict on the docs example', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  /** `citadel migrate`, then `citadel check --strict`, on a database of its own. */
  async function check(name: string, config: string) {
    const dir = join(OUT, `${name}-${testDialect()}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'citadel.config.ts');
    writeFileSync(file, config);
    return checkFile(file);
  }

  async function checkFile(file: string) {
    const database = await createTestDatabase();
    databases.push(database);
    const env = { DATABASE_URL: database.url, SESSION_SECRET: TEST_SECRET };
    const migrated = await runCitadel(['migrate', '--config', file], env);
    expect(migrated.code, migrated.stderr + migrated.stdout).toBe(0);
    return runCitadel(['check', '--strict', '--config', file], env);
  }

  it('the notes example declares the indexes it needs', async () => {
    const strict = await check('notes', notesConfig());
    expect(strict.code, strict.stdout + strict.stderr).toBe(0);
    expect(strict.stdout).toContain('every declared field and relation key has an index');
  }, 180_000);

  it('the demo (npm start) declares the indexes it needs', async () => {
    const strict = await checkFile(BLOG_CONFIG);
    expect(strict.code, strict.stdout + strict.stderr).toBe(0);
  }, 180_000);

  it('without them, the check fails naming each', async () => {
    const bare = notesConfig((code) =>
      code
        .replace(/^\s*await db\.schema\.createIndex\(.*\n/m, '')
        .replace(/^\s*await createSearchIndex\(.*\n/m, ''),
    );
    expect(bare).not.toContain('createIndex(');
    const strict = await check('bare', bare);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('sortable notes.created_at has no usable index');
  }, 180_000);
});
