// Dialect-independent: the package's entry points and their types; `npm test` runs it with the first database only.
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../src/testing.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRIES = [
  'src/index.ts',
  'src/fastify.ts',
  'src/html.ts',
  'src/migrations.ts',
  'src/plugin-api.ts',
  'src/testing.ts',
  'src/client/index.ts',
];

/** Every export of every public entry module, with whether its declaration carries a TSDoc comment. */
function exportsWithoutDocs(): string[] {
  const program = ts.createProgram(
    ENTRIES.map((entry) => resolve(ROOT, entry)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
    },
  );
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  for (const entry of ENTRIES) {
    const source = program.getSourceFile(resolve(ROOT, entry))!;
    const moduleSymbol = checker.getSymbolAtLocation(source)!;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const documented =
        symbol.getDocumentationComment(checker).length > 0 ||
        (symbol.declarations ?? []).some((d) => ts.getJSDocCommentsAndTags(d).length > 0);
      if (!documented) missing.push(`${entry}: ${exported.name}`);
    }
  }
  return missing;
}

describe('public entry modules', () => {
  it('every export has a TSDoc comment', () => {
    expect(exportsWithoutDocs()).toEqual([]);
  }, 120_000);

  it('citadel/testing starts a real server on a temporary SQLite database', async () => {
    const test = await startTestServer();
    try {
      const res = await fetch(`${test.url}/login`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect((await res.json()).action).toBe('login.show');
    } finally {
      await test.close();
    }
  });
});
