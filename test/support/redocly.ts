import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
// The installed CLI, run by this Node: no npx lookup, nothing downloaded.
const REDOCLY = resolve(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

export interface LintResult {
  version: string;
  totals: { errors: number; warnings: number; ignored: number };
  /** Each problem as one line: severity, rule, message and where. */
  problems: string[];
}

interface RawLintResult {
  version: string;
  totals: LintResult['totals'];
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/**
 * Redocly CLI's `lint` with the repository's redocly.yaml (the recommended ruleset; the rules it
 * turns off are justified there) on one OpenAPI document, offline.
 */
export async function lintOpenApi(document: unknown): Promise<LintResult> {
  const folder = mkdtempSync(join(tmpdir(), 'citadel-openapi-lint-'));
  try {
    const file = join(folder, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
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
    const raw = JSON.parse(stdout) as RawLintResult;
    return {
      version: raw.version,
      totals: raw.totals,
      problems: raw.problems.map(
        (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
      ),
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
