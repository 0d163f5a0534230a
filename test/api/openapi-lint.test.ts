import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { blogApi } from '../../examples/blog/api.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
// The installed CLI, run by this Node: no npx lookup, nothing downloaded.
const REDOCLY = resolve(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const folder = mkdtempSync(join(tmpdir(), 'citadel-openapi-lint-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface LintResult {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/**
 * Redocly CLI's `lint` with the repository's redocly.yaml (the recommended ruleset; the rules it
 * turns off are justified there), on the demo's documents, 3.0.3 and 3.1.0.
 */
describe('Redocly lint of the demo documents (recommended ruleset, redocly.yaml)', () => {
  for (const version of ['v1', 'v2']) {
    for (const openapi of ['3.0', '3.1'] as const) {
      it(`${version} as OpenAPI ${openapi}: no error, no warning`, { timeout: 60_000 }, async () => {
        const file = join(folder, `${version}-${openapi}.json`);
        writeFileSync(file, JSON.stringify(buildOpenApiDocument(blogApi, version, { openapi }), null, 2));
        const { stdout } = await run(
          process.execPath,
          [REDOCLY, 'lint', '--config', resolve(ROOT, 'redocly.yaml'), '--format', 'json', file],
          {
            cwd: ROOT,
            maxBuffer: 10 * 1024 * 1024,
            env: {
              ...process.env,
              // No usage report, no update check: the lint runs offline.
              REDOCLY_TELEMETRY: 'off',
              REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
              CI: 'true',
            },
          },
        ).catch((error: { stdout?: string; stderr?: string }) => {
          // Exit code 1 on errors: the JSON report on stdout says which.
          if (error.stdout) return { stdout: error.stdout };
          throw new Error(`redocly lint did not run: ${error.stderr ?? String(error)}`);
        });
        const result = JSON.parse(stdout) as LintResult;
        const problems = result.problems.map(
          (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
        );
        expect(problems).toEqual([]);
        expect(result.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
        expect(JSON.parse(stdout)).toMatchObject({ version: '2.77.0' });
      });
    }
  }
});
