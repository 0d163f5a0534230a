import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCitadel } from '../support/citadel-cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { TEST_SECRET } from '../support/app.ts';

const SRC = resolve(import.meta.dirname, '../../src/index.ts');

describe('citadel check: missing messages per language', () => {
  let database: TestDatabase;
  let config: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const folder = mkdtempSync(join(tmpdir(), 'citadel-locales-'));
    writeFileSync(join(folder, 'package.json'), '{"type":"module"}');
    config = join(folder, 'citadel.config.ts');
    // An application that adds Spanish with two messages and replaces one German message.
    writeFileSync(
      config,
      `import { defineConfig } from ${JSON.stringify(SRC)};
export default defineConfig({
  locales: {
    es: { 'core.nav.signIn': 'Iniciar sesión', 'password.page.setTitle': 'Establecer una contraseña' },
    de: { 'core.nav.signIn': 'Einloggen' },
  },
});
`,
    );
  });
  afterAll(async () => database?.drop());

  it('prints "<lang>: N missing" then one key per line; complete languages say 0', async () => {
    const run = await runCitadel(['check', '--config', config], {
      DATABASE_URL: database.url,
      SESSION_SECRET: TEST_SECRET,
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    for (const shipped of ['de', 'fr', 'ar']) expect(lines).toContain(`${shipped}: 0 missing`);
    const header = lines.findIndex((line) => /^es: \d+ missing$/.test(line));
    expect(header, run.stdout).toBeGreaterThanOrEqual(0);
    const count = Number(/^es: (\d+) missing$/.exec(lines[header]!)![1]);
    const keys = lines.slice(header + 1, header + 1 + count);
    expect(
      keys.every((line) => /^ {2}[a-z][a-z0-9_-]*\.[\w.]+$/i.test(line)),
      keys.join('\n'),
    ).toBe(true);
    expect(keys).toContain('  core.nav.signOut');
    expect(keys).toContain('  password.page.changeTitle');
    // What the application translated is not missing.
    expect(keys).not.toContain('  core.nav.signIn');
    expect(keys).not.toContain('  password.page.setTitle');
    expect(count).toBeGreaterThan(100);
  }, 120_000);

  it('stops on a message key no catalog has (a typo)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'citadel-locales-'));
    writeFileSync(join(folder, 'package.json'), '{"type":"module"}');
    const typo = join(folder, 'citadel.config.ts');
    writeFileSync(
      typo,
      `import { defineConfig } from ${JSON.stringify(SRC)};
export default defineConfig({ locales: { de: { 'core.nav.signin': 'Einloggen' } } });
`,
    );
    const run = await runCitadel(['check', '--config', typo], {
      DATABASE_URL: database.url,
      SESSION_SECRET: TEST_SECRET,
    });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toContain('core.nav.signin');
  }, 120_000);
});
