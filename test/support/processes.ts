import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TEST_SECRET } from './app.ts';
import { createServer, type AddressInfo } from 'node:net';

/** A free TCP port on loopback (closed again at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A private Redis server on `port`, persisting nothing, that a test may stop and start at will. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 10_000;
  while (!/Ready to accept connections/i.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server failed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM') {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export const redisAvailable = () =>
  new Promise<boolean>((resolve) => {
    const probe = spawn('redis-server', ['--version']);
    probe.on('error', () => resolve(false));
    probe.on('exit', (code) => resolve(code === 0));
  });

export const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Child processes compile the sources on start: slow on a busy machine, so their tests wait long. */
export const PROCESS_TEST_TIMEOUT = 180_000;

/** A real `citadel serve` with the given extra arguments and variables, once it listens. */
export async function startServe(
  env: Record<string, string>,
  args: string[] = [],
  listening = /Citadel listening on (http:\/\/127\.0\.0\.1:\d+)/,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'citadel-ops-')),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      SESSION_SECRET: TEST_SECRET,
      SEED_DEMO: '0',
      PORT: '0',
      ...env,
    },
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const url = listening.exec(output)?.[1];
    if (url) return { child, url, output: () => output, exited };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`citadel serve did not start:\n${output}`);
}

/** Wait until `predicate` holds (polled), or fail with `what`. */
export async function until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
