import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMigration, MakeMigrationError } from '../../src/db/make-migration.ts';
import type { CitadelMigration } from '../../src/migrations.ts';
import { startTestApp } from '../support/app.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const MIGRATIONS_ENTRY = pathToFileURL(join(ROOT, 'src/migrations.ts')).href;

describe('citadel make:migration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'citadel-make-migration-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes a timestamped skeleton that creates its table when the server migrates', async () => {
    const lines: string[] = [];
    const now = new Date('2026-11-24T09:30:05.123Z');
    const path = await makeMigration('create_notes', join(dir, 'a'), (line) => lines.push(line), now);
    expect(path).toBe(join(dir, 'a', '20261124093005_create_notes.ts'));
    expect(lines).toEqual([`created ${path}`]);
    const source = await readFile(path, 'utf8');
    expect(source).toContain("from 'citadel/migrations'");
    expect(source).toContain("name: '20261124093005_create_notes'");

    // The skeleton as an application would use it, against this checkout's sources.
    const runnable = join(dir, 'a', 'runnable.ts');
    await writeFile(runnable, source.replace("from 'citadel/migrations'", `from '${MIGRATIONS_ENTRY}'`));
    const migration = ((await import(pathToFileURL(runnable).href)) as { default: CitadelMigration }).default;
    const t = await startTestApp({ migrations: [migration] });
    try {
      const db = t.services.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
      await db.insertInto('notes').values({ created_at: new Date().toISOString() }).execute();
      const rows = await db.selectFrom('notes').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(typeof rows[0]!.id === 'number' || typeof rows[0]!.id === 'string').toBe(true);
    } finally {
      await t.close();
    }
  });

  it('refuses a bad name and never overwrites a file', async () => {
    await expect(makeMigration('Create Notes', dir, () => {})).rejects.toBeInstanceOf(MakeMigrationError);
    const now = new Date('2026-11-24T10:00:00Z');
    await makeMigration('add_index', join(dir, 'b'), () => {}, now);
    await expect(makeMigration('add_index', join(dir, 'b'), () => {}, now)).rejects.toThrow(/already exists/);
    expect(await readdir(join(dir, 'b'))).toEqual(['20261124100000_add_index.ts']);
  });

  it('is a command: one line for a missing name, the file in ./migrations by default', async () => {
    const cwd = join(dir, 'c');
    await run('mkdir', ['-p', cwd]);
    const bin = join(ROOT, 'bin/citadel.mjs');
    const missing = await run('node', [bin, 'make:migration'], { cwd }).catch((error: unknown) => error);
    expect((missing as { stderr: string }).stderr.trim()).toBe(
      'citadel: make:migration needs a migration name (see citadel --help)',
    );
    const made = await run('node', [bin, 'make:migration', 'create_notes'], { cwd });
    expect(made.stdout).toMatch(/created .*migrations\/\d{14}_create_notes\.ts/);
    expect(await readdir(join(cwd, 'migrations'))).toHaveLength(1);
  }, 120_000);
});
