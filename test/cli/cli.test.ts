import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { TEST_SECRET } from '../support/app.ts';

const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the real command line in an empty folder with only the given environment. */
function citadel(
  args: string[],
  env: Record<string, string> = {},
  cwd = mkdtempSync(join(tmpdir(), 'citadel-cli-')),
) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolveRun) =>
    child.on('close', (code) => resolveRun({ code, stdout, stderr })),
  );
  return { child, done, output: () => stdout };
}

function expectOneLineFailure(run: Run, expected: string) {
  expect(run.code).toBe(1);
  const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^citadel: /);
  expect(lines[0]).toContain(expected);
  expect(run.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  expect(run.stdout).toBe('');
}

describe('citadel command line', () => {
  it('--help prints the usage and exits 0', async () => {
    const run = await citadel(['--help']).done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('citadel serve');
    expect(run.stdout).toContain('citadel migrate');
    expect(run.stderr).toBe('');
  });

  it('an unknown command exits 1 with one line', async () => {
    expectOneLineFailure(await citadel(['frobnicate']).done, 'unknown command "frobnicate"');
  });

  it('a missing --config file exits 1 with one line', async () => {
    expectOneLineFailure(
      await citadel(['serve', '--config', 'nope.config.ts']).done,
      'config file not found',
    );
  });

  it.each([
    [{ DATABASE_URL: 'definitely not a url' }, 'DATABASE_URL'],
    [{ NODE_ENV: 'production' }, 'SESSION_SECRET is required when NODE_ENV=production'],
    [{ AUTH_LOGIN_ACTIONS: 'email_2fa,no_such_action' }, 'unknown action id "no_such_action"'],
    [{ DATABASE_URL: 'postgres://citadel:hunter2@127.0.0.1:1/none' }, 'could not connect to the database'],
  ])('serve with bad configuration %j exits 1 printing one line', async (env, expected) => {
    const run = await citadel(['serve'], { SESSION_SECRET: '', ...env }).done;
    expectOneLineFailure(run, expected);
    expect(run.stderr).not.toContain('hunter2');
  });

  describe('on the run database', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => database?.drop());

    it('migrate applies the migrations once, then has nothing to do', async () => {
      const env = { DATABASE_URL: database.url, SESSION_SECRET: TEST_SECRET };
      const first = await citadel(['migrate'], env).done;
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^applied: 0000_core/);
      const second = await citadel(['migrate'], env).done;
      expect(second.code).toBe(0);
      expect(second.stdout.trim()).toBe('nothing to migrate');
    });

    it('serve listens, answers, and stops cleanly on SIGTERM', async () => {
      const proc = citadel(['serve'], {
        DATABASE_URL: database.url,
        SESSION_SECRET: TEST_SECRET,
        PORT: '0',
        SEED_DEMO: '0',
      });
      const deadline = Date.now() + 20_000;
      let address: string | undefined;
      while (!address && Date.now() < deadline) {
        address = /Citadel listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output())?.[1];
        if (!address) await new Promise((r) => setTimeout(r, 50));
      }
      expect(address, proc.output()).toBeDefined();
      const res = await fetch(`${address}/login`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ action: 'login.show' });
      proc.child.kill('SIGTERM');
      const run = await proc.done;
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('SIGTERM: shutting down');
    });
  });
});
