import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BENCH_SECRET } from './setup.ts';
import { freePort } from '../test/ops/support.ts';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * `citadel serve --workers N` with the demo configuration on an existing (seeded) database, with
 * the bench's secret so the ids match. Resolves once every worker listens.
 */
export async function startServeProcess(databaseUrl: string, workers: number) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/citadel.mjs'),
      'serve',
      '--workers',
      String(workers),
      '--config',
      join(ROOT, 'citadel.config.ts'),
    ],
    {
      cwd: mkdtempSync(join(tmpdir(), 'citadel-bench-')),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        DATABASE_URL: databaseUrl,
        SESSION_SECRET: BENCH_SECRET,
        SEED_DEMO: '0',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://127.0.0.1:9',
        APP_URL: 'http://127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  // Request logs (info) would be measured too: warn level, and readiness seen on /healthz.
  const deadline = Date.now() + 120_000;
  const listening = () => (workers > 1 ? /Citadel primary: \d+ workers listening/.test(output) : true);
  for (;;) {
    const healthy = await fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy && listening()) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`citadel serve --workers ${workers} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    origin,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
