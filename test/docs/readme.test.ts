// Dialect-independent: reads files only; `npm test` runs it with the first database only.
/**
 * The README's first lines are a newcomer's path (the two commands, then what to do in the
 * browser, then links), its command list names every command of `citadel --help`, and the Node
 * cookie jar docs/client.md shows is the one the client tests use.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('README and docs stay in step with the code', () => {
  it('starts with the two commands, then open, register and the emails in this terminal, then links', () => {
    const lines = read('README.md').split('\n');
    expect(lines.slice(0, 5)).toEqual([
      '# Citadel',
      '',
      '```sh',
      expect.stringMatching(/^npm install && npm start\s+#/),
      expect.stringMatching(/^npm test\s+#/),
    ]);
    const next = lines.slice(6, 14).join(' ');
    expect(next).toMatch(
      /open http:\/\/localhost:3000 and register: the emails .* appear in\s+this terminal/,
    );
    expect(next).toContain('](docs/build-your-app.md)');
    // Weights and timings live in docs/benchmarks.md.
    expect(read('README.md')).not.toMatch(/Install weight|Time to first\s+answer/);
    expect(read('docs/benchmarks.md')).toMatch(/## Install and start\n\nInstall weight/);
  });

  it('lists every command of citadel --help', () => {
    const help = /const HELP = `([\s\S]*?)`;/.exec(read('src/cli.ts'))![1]!;
    const commands = [...help.matchAll(/^\s+citadel ([a-z:-]+(?: --[a-z-]+)?)/gm)].map((m) => m[1]!);
    expect(commands).toEqual(
      expect.arrayContaining(['serve', 'keys:rotate', 'admin:grant', 'openapi --auth']),
    );
    const readme = read('README.md');
    const listed = readme.slice(readme.indexOf('Command line ('), readme.indexOf('## Running on PostgreSQL'));
    expect(commands.filter((command) => !listed.includes(`citadel ${command}`))).toEqual([]);
  });

  it("docs/client.md shows the client tests' cookie jar", () => {
    const support = read('test/client/support.ts');
    const body = support.slice(support.indexOf('export function cookieFetch'), support.lastIndexOf('}') + 1);
    expect(read('docs/client.md')).toContain(body);
  });
});
