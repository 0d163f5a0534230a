import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/citadel.mjs');

/** The demo's configuration file, for `--config`. */
export const BLOG_CONFIG = resolve(import.meta.dirname, '../../examples/blog/citadel.config.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `citadel <args>` as a user runs it: the package's bin in a fresh empty folder, with only PATH,
 * HOME and the variables given (nothing of the test process's environment leaks in).
 */
export function runCitadel(args: string[], env: Record<string, string>): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'citadel-cli-')),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}
