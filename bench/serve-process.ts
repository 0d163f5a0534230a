import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BENCH_SECRET } from './setup.ts';
import { freePort } from '../test/ops/support.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** A server in a child process of the bench: where it listens, and how to stop it. */
export interface BenchProcess {
  origin: string;
  /** The child's process id (its memory is read from /proc). */
  pid: number;
  close(): Promise<void>;
}

/**
 * Spawns a server on `port` and resolves once `ready(origin, output)` answers true; throws with its
 * output when it exits first or is not ready within two minutes.
 */
export async function startProcess(
  name: string,
  command: readonly string[],
  options: { cwd: string; env: Record<string, string>; port: number },
  ready: (origin: string, output: string) => Promise<boolean>,
): Promise<BenchProcess> {
  const origin = `http://127.0.0.1:${options.port}`;
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise((done) => child.once('exit', done));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (await ready(origin, output).catch(() => false)) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    origin,
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `citadel serve --workers N` with the demo configuration on an existing (seeded) database, with
 * the bench's secret so the ids match. Resolves once every worker listens.
 */
export async function startServeProcess(databaseUrl: string, workers: number): Promise<BenchProcess> {
  const port = await freePort();
  // Request logs (info) would be measured too: warn level, and readiness seen on /healthz.
  return startProcess(
    `citadel serve --workers ${workers}`,
    [
      process.execPath,
      join(ROOT, 'bin/citadel.mjs'),
      'serve',
      '--workers',
      String(workers),
      '--config',
      join(ROOT, 'citadel.config.ts'),
    ],
    {
      cwd: mkdtempSync(join(tmpdir(), 'citadel-bench-')),
      port,
      env: {
        DATABASE_URL: databaseUrl,
        SESSION_SECRET: BENCH_SECRET,
        SEED_DEMO: '0',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        SMTP_URL: 'smtp://127.0.0.1:9',
        APP_URL: 'http://127.0.0.1',
      },
    },
    async (origin, output) =>
      (await fetch(`${origin}/healthz`)).ok &&
      (workers === 1 || /Citadel primary: \d+ workers listening/.test(output)),
  );
}
