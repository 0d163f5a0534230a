// Dialect-independent: code generation and file lookup; `npm test` runs it with the first database only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configPath } from '../../src/cli.ts';
import { ConfigError } from '../../src/core/errors.ts';

/** Which config file the command line loads, with and without a Node.js that runs TypeScript. */
describe('the config file the command line loads', () => {
  let dir: string;
  const folder = (...files: string[]) => {
    dir = mkdtempSync(join(tmpdir(), 'citadel-config-path-'));
    for (const file of files) writeFileSync(join(dir, file), 'export default {};\n');
    return dir;
  };
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('none: environment variables only', () => {
    expect(configPath(undefined, true, folder())).toBeNull();
    expect(configPath(undefined, false, dir)).toBeNull();
  });

  it('citadel.config.ts first where Node.js runs TypeScript, else the compiled .mjs or .js', () => {
    folder('citadel.config.ts', 'citadel.config.js');
    expect(configPath(undefined, true, dir)).toBe(join(dir, 'citadel.config.ts'));
    expect(configPath(undefined, false, dir)).toBe(join(dir, 'citadel.config.js'));
    writeFileSync(join(dir, 'citadel.config.mjs'), 'export default {};\n');
    expect(configPath(undefined, false, dir)).toBe(join(dir, 'citadel.config.mjs'));
  });

  it('a .ts config alone on a Node.js without type stripping is one line saying what to do', () => {
    folder('citadel.config.ts');
    const refuse = () => configPath(undefined, false, dir);
    expect(refuse).toThrow(ConfigError);
    expect(refuse).toThrow(
      /citadel\.config\.ts is TypeScript, which Node\.js .* cannot load without a loader/,
    );
    expect(refuse).toThrow(/compile it to citadel\.config\.js \(or \.mjs\), or use Node\.js 23\.6\+/);
    expect(() => configPath('citadel.config.ts', false, dir)).toThrow(/compile it to citadel\.config\.js/);
    expect(() => configPath('missing.mjs', true, dir)).toThrow(/config file not found/);
  });
});
