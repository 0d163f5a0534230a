#!/usr/bin/env node
// `npm test`: the whole suite on each database dialect (files marked dialect-independent run on the
// first only). SQLite always runs; PostgreSQL and MariaDB run when reachable (or always, and must be
// reachable, when CITADEL_TEST_DATABASES names them, as .ci/run does). Extra arguments go to vitest
// (for example a file filter).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const required = (process.env.CITADEL_TEST_DATABASES ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const candidates = [
  { dialect: 'sqlite' },
  {
    dialect: 'postgres',
    url: process.env.CITADEL_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    port: 5432,
  },
  {
    dialect: 'mysql',
    url: process.env.CITADEL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
    port: 3306,
  },
];

function reachable(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.setTimeout(1500, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

function firstLine(text) {
  return (
    String(text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

const runs = [];
for (const c of candidates) {
  const wanted = required.length === 0 || required.includes(c.dialect);
  if (!wanted) continue;
  if (c.url && !(await reachable(c.url))) {
    if (required.includes(c.dialect)) {
      console.error(
        `\nERROR: ${c.dialect} at ${c.url} is required (CITADEL_TEST_DATABASES) but cannot be reached.`,
      );
      process.exit(1);
    }
    console.log(`\nNOTICE: ${c.dialect} is not reachable at ${c.url}: its run of the suite is SKIPPED.`);
    continue;
  }
  runs.push(c.dialect);
}

/**
 * Test files that do not depend on the database dialect (types, catalogs, documents, pages in a
 * browser, protocol shapes) say so in their first lines with the marker below: they run with the
 * first database only, so CI time grows with what the dialects change, not with the suite.
 */
const ONCE_MARKER = 'Dialect-independent:';
function dialectIndependentFiles(dir = 'test') {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...dialectIndependentFiles(path));
    else if (entry.name.endsWith('.test.ts')) {
      const head = readFileSync(path, 'utf8').split('\n', 8).join('\n');
      if (head.includes(ONCE_MARKER)) found.push(path);
    }
  }
  return found;
}
const once = dialectIndependentFiles();

mkdirSync('.test-output', { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
let failedRuns = [];
/** One line per failed test (database, file, name, first line of the error), printed last so a
 * truncated CI log still names what failed. */
const failures = [];
for (const dialect of runs) {
  const first = dialect === runs[0];
  console.log(
    `\n=== test suite on ${dialect}${first ? '' : ` (without the ${once.length} dialect-independent files)`} ===`,
  );
  const report = `.test-output/vitest-${dialect}.json`;
  rmSync(report, { force: true });
  const exclude = first ? [] : ['--passWithNoTests', ...once.flatMap((file) => ['--exclude', file])];
  const result = spawnSync(
    'npx',
    [
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...exclude,
      ...args,
    ],
    { stdio: 'inherit', env: { ...process.env, CITADEL_TEST_DB: dialect } },
  );
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    passed += json.numPassedTests;
    failed += json.numFailedTests;
    skipped += json.numPendingTests + json.numTodoTests;
    if (json.numFailedTests > 0 || json.numFailedTestSuites > 0) failedRuns.push(dialect);
    for (const file of json.testResults ?? []) {
      const where = relative(process.cwd(), file.name);
      const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failedTests)
        failures.push(`${dialect}: ${where} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
      if (failedTests.length === 0 && file.status === 'failed')
        failures.push(`${dialect}: ${where}: ${firstLine(file.message)}`);
    }
  } catch {
    failedRuns.push(dialect);
    failed += 1;
  }
  if (result.status !== 0 && !failedRuns.includes(dialect)) failedRuns.push(dialect);
}

console.log(
  `\nDatabases: ${runs.join(', ')}${failedRuns.length ? ` (failures on: ${failedRuns.join(', ')})` : ''}`,
);
if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedRuns.length > 0 ? 1 : 0);
