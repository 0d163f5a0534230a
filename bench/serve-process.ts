import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { BENCH_SECRET } from './setup.ts';
import { freePort } from '../test/support/processes.ts';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const COMPILED_CLI = join(DIST, 'cli.js');

/** The newest modification time of a file under `dir`, in milliseconds. */
function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** dist/cli.js exists and was built after the last change under src/. */
export function compiledIsCurrent(): boolean {
  return existsSync(COMPILED_CLI) && statSync(COMPILED_CLI).mtimeMs >= newestChange(SRC);
}

/**
 * Builds dist/ (`npm run build`) unless it is current, so the serve processes run what users run:
 * the compiled CLI, about 50 MiB lighter than the sources through tsx (docs/scale.md).
 */
export function buildUnlessCurrent(log: (line: string) => void): void {
  if (compiledIsCurrent()) return;
  log('dist/ is missing or older than src/: npm run build');
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error(`npm run build failed (${built.status})`);
}

/** Imports of src/*.ts from the demo's modules, pointed at their compiled twins in dist/. */
const sourcesToDist: Plugin = {
  name: 'citadel-sources-to-dist',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.{1,2}\// }, (args) => {
      const path = resolve(args.resolveDir, args.path);
      if (!path.startsWith(SRC + sep)) return undefined;
      const compiled = join(DIST, relative(SRC, path)).replace(/\.ts$/, '.js');
      return { path: pathToFileURL(compiled).href, external: true };
    });
  },
};

/**
 * The demo configuration (citadel.config.ts) as one JavaScript module for the compiled CLI: a
 * TypeScript config would make it load tsx again, and with it a second copy of Citadel from
 * src/ (whose error classes the compiled server would not recognise). It is written under
 * node_modules/.cache so that its package imports (kysely) resolve from the checkout.
 */
async function compiledDemoConfig(): Promise<string> {
  const directory = join(ROOT, 'node_modules/.cache/citadel-bench');
  mkdirSync(directory, { recursive: true });
  const outfile = join(directory, 'citadel.config.mjs');
  await build({
    entryPoints: [join(ROOT, 'citadel.config.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    plugins: [sourcesToDist],
    logLevel: 'warning',
  });
  return outfile;
}

/** What the serve process runs: `dist` (the compiled CLI) or `tsx` (the sources of the checkout). */
export type ServeBuild = 'dist' | 'tsx';

/** The command line of `citadel serve` with the demo configuration, compiled when dist/ is current. */
async function serveCommand(workers: number): Promise<{ build: ServeBuild; command: string[] }> {
  const serve = ['serve', '--workers', String(workers), '--config'];
  if (compiledIsCurrent())
    return { build: 'dist', command: [process.execPath, COMPILED_CLI, ...serve, await compiledDemoConfig()] };
  return {
    build: 'tsx',
    command: [process.execPath, join(ROOT, 'bin/citadel.mjs'), ...serve, join(ROOT, 'citadel.config.ts')],
  };
}

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
 * the bench's secret so the ids match. Resolves once every worker listens. It runs the compiled
 * CLI when dist/ is current (see `buildUnlessCurrent`), else the checkout's sources through tsx;
 * `build` says which, and it is logged.
 */
export async function startServeProcess(
  databaseUrl: string,
  workers: number,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<BenchProcess & { build: ServeBuild }> {
  const port = await freePort();
  const { build: which, command } = await serveCommand(workers);
  log(
    which === 'dist'
      ? 'serve process: compiled dist/cli.js'
      : 'serve process: the sources through tsx (dist/ missing or older than src/)',
  );
  // Request logs (info) would be measured too: warn level, and readiness seen on /healthz.
  const served = await startProcess(
    `citadel serve --workers ${workers}`,
    command,
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
  return { ...served, build: which };
}
