#!/usr/bin/env node
// Time from starting `citadel serve` to its first 200 on GET /, on a new empty SQLite database (so
// the measure includes creating and migrating it, and seeding the demo where there is one).
//
// Usage: node scripts/time-to-first-answer.mjs [--runs N] [--bin PATH] [--cwd DIR]
//   --bin  the citadel command to run (default: this checkout's bin/citadel.mjs, the demo that
//          `npm start` serves, on the TypeScript sources through tsx); a consumer's
//          node_modules/citadel/bin/citadel.mjs runs the compiled package instead
//   --cwd  the folder it runs in (where its citadel.config.* is looked for; default: the checkout)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, bin: { type: 'string' }, cwd: { type: 'string' } },
});
const repo = resolve(import.meta.dirname, '..');
const bin = resolve(values.bin ?? join(repo, 'bin/citadel.mjs'));
const cwd = resolve(values.cwd ?? repo);

async function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The caller's environment with a new data folder (and its SQLite file) and a free port. */
function environment(port, dataDir) {
  const env = { ...process.env, PORT: String(port), CITADEL_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.SESSION_SECRET;
  delete env.NODE_ENV;
  return env;
}

async function once() {
  const dataDir = mkdtempSync(join(tmpdir(), 'citadel-first-answer-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve'], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: environment(port, dataDir),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`citadel serve exited with ${child.exitCode}: ${stderr}`);
      const status = await fetch(`http://127.0.0.1:${port}/`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error(`no 200 within 120 s: ${stderr}`);
      await new Promise((done) => setTimeout(done, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const times = [];
for (let run = 0; run < Number(values.runs); run += 1) times.push(await once());
const sorted = [...times].sort((a, b) => a - b);
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `time to first answer (${bin.replace(`${repo}/`, '')}, ${times.length} runs): ` +
    `median ${seconds(sorted[Math.floor(sorted.length / 2)])}, min ${seconds(sorted[0])}, max ${seconds(sorted.at(-1))}`,
);
