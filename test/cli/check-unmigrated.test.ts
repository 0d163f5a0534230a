import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { TEST_SECRET } from '../helpers/app.ts';

/** Issue 25: `citadel check` on a database that was never migrated says so, once. */
const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');
const BLOG_CONFIG = resolve(import.meta.dirname, '../../examples/blog/citadel.config.ts');

function citadel(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'citadel-check-')),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on('close', (code) => done({ code, stdout, stderr })),
  );
}

describe('citadel check on an unmigrated database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('names the missing tables with "run citadel migrate first", not every column as unindexed', async () => {
    const env = { DATABASE_URL: database.url, SESSION_SECRET: TEST_SECRET };
    const lenient = await citadel(['check', '--config', BLOG_CONFIG], env);
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

    const strict = await citadel(['check', '--strict', '--config', BLOG_CONFIG], env);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('run citadel migrate first');
  }, 120_000); // two runs of the real command line, each loading TypeScript through tsx
});
