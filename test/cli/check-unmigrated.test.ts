import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_CONFIG, runCitadel } from '../support/citadel-cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { TEST_SECRET } from '../support/app.ts';

/** Issue 25: `citadel check` on a database that was never migrated says so, once. */

describe('citadel check on an unmigrated database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('names the missing tables with "run citadel migrate first", not every column as unindexed', async () => {
    const env = { DATABASE_URL: database.url, SESSION_SECRET: TEST_SECRET };
    const lenient = await runCitadel(['check', '--config', BLOG_CONFIG], env);
    expect(lenient.code, lenient.stderr).toBe(0);
    const lines = lenient.stdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines[0]).toMatch(
      /^tables .*\bposts\b.* do not exist on this database: run citadel migrate first/,
    );
    expect(lenient.stdout).toContain('comments');
    // No finding about a table that is not there: least of all its primary key.
    expect(lenient.stdout).not.toContain('has no usable index');
    expect(lenient.stdout).not.toMatch(/posts\.id|users\.id/);
    expect(lenient.stdout).not.toContain('every declared field and relation key has an index');

    const strict = await runCitadel(['check', '--strict', '--config', BLOG_CONFIG], env);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('run citadel migrate first');
  }, 120_000); // two runs of the real command line, each loading TypeScript through tsx
});
