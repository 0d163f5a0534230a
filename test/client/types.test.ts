// Dialect-independent: type checks; `npm test` runs it with the first database only.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const TYPES = join(ROOT, 'test/client/types');
const MISUSE = join(TYPES, 'misuse.ts');
/** misuse.ts with every `@ts-expect-error` directive taken out (an in-memory file). */
const PROBE = join(TYPES, 'misuse-without-directives.ts');

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  noEmit: true,
  strict: true,
};

function message(d: ts.Diagnostic): string {
  const where = d.file ? `${d.file.fileName.slice(ROOT.length + 1)}:${line(d) + 1}: ` : '';
  return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
}
const line = (d: ts.Diagnostic) => d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line;

/** One strict program over the type tests (and the probe); diagnostics of each test file. */
function check(): Map<string, ts.Diagnostic[]> {
  const host = ts.createCompilerHost(OPTIONS);
  const probeText = readFileSync(MISUSE, 'utf8').replaceAll('// @ts-expect-error', '// (misuse)');
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === PROBE ? ts.createSourceFile(name, probeText, version) : getSourceFile(name, version, ...rest);
  host.fileExists = (name) => name === PROBE || fileExists(name);
  const files = ['positive.ts', 'misuse.ts', 'names.ts', 'hook-fields.ts'].map((file) => join(TYPES, file));
  const program = ts.createProgram([...files, PROBE], OPTIONS, host);
  const result = new Map<string, ts.Diagnostic[]>();
  for (const file of [...files, PROBE]) {
    const source = program.getSourceFile(file)!;
    result.set(file, [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]);
  }
  return result;
}

describe('citadel/client types', () => {
  let checked: Map<string, ts.Diagnostic[]>;

  it('a correct program compiles; each misuse is an error; the method names agree with the run-time rule', () => {
    checked = check();
    // An `@ts-expect-error` whose line no longer has an error is itself reported in misuse.ts.
    for (const file of ['positive.ts', 'misuse.ts', 'names.ts', 'hook-fields.ts'])
      expect(checked.get(join(TYPES, file))!.map(message), file).toEqual([]);
  }, 240_000);

  it('without its directive, every misuse line is reported (so the test above can fail)', () => {
    const misuses = [...readFileSync(MISUSE, 'utf8').split('\n').entries()]
      .filter(([, text]) => text.trim().startsWith('// @ts-expect-error'))
      .map(([index]) => index + 1);
    expect(misuses.length).toBeGreaterThanOrEqual(25);
    const reported = new Set(checked.get(PROBE)!.map(line));
    expect(misuses.filter((index) => !reported.has(index))).toEqual([]);
  });

  it('src/client imports nothing from the server at run time (types only)', () => {
    const dir = join(ROOT, 'src/client');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^'";]*from\s+'([^']+)'/gm)) {
        const [, , typeOnly, specifier] = match;
        if (/^\.\/[^/]+$/.test(specifier!)) continue;
        expect(typeOnly, `${file} imports ${specifier} at run time`).toBe('type ');
      }
    }
  });
});
