// Dialect-independent: type checks; `npm test` runs it with the first database only.
/**
 * The factories' types (contract section 15, issue 21): a factory's options are typed (an unknown
 * key or a wrong type does not compile), and what a factory and `defaultPlugins()` return keeps
 * the literal types a typed client reads (ids, endpoint paths, methods and schemas). Compiled with
 * the TypeScript compiler and the repository's tsconfig.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const positive = join(here, 'types/positive.ts');
const negative = join(here, 'types/negative.ts');

function compilerOptions(): ts.CompilerOptions {
  const file = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return ts.parseJsonConfigFileContent(file.config, ts.sys, root).options;
}

let previous: ts.Program | undefined;

/**
 * Errors in the fixture files of a program of `files`, where `replace` gives some files another
 * text. (The repository's own files are checked by `npm run typecheck`; a program rooted at the
 * fixtures alone misses the table types some capabilities merge into `Database`.)
 */
function diagnostics(files: string[], replace: Record<string, string> = {}) {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (path) => replace[resolve(path)] ?? read(path);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (path, language, onError, create) => {
    const text = replace[resolve(path)];
    return text === undefined
      ? getSourceFile(path, language, onError, create)
      : ts.createSourceFile(path, text, language);
  };
  const program = ts.createProgram(files, options, host, previous);
  previous = program;
  const fixtures = new Set([positive, negative]);
  const found = files.flatMap((file) => [
    ...program.getSyntacticDiagnostics(program.getSourceFile(file)),
    ...program.getSemanticDiagnostics(program.getSourceFile(file)),
  ]);
  expect(found.every((d) => d.file && fixtures.has(resolve(d.file.fileName)))).toBe(true);
  return found.map((d) => ({
    file: d.file ? resolve(d.file.fileName) : undefined,
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}

describe('plugin factories are typed', () => {
  it(
    'a clean program compiles; each @ts-expect-error line (unknown option key, wrong option type) is an error',
    { timeout: 120_000 },
    () => {
      expect(diagnostics([positive, negative])).toEqual([]);
    },
  );

  it('without the @ts-expect-error comments, exactly those lines fail', { timeout: 120_000 }, () => {
    const text = readFileSync(negative, 'utf8');
    const lines = text.split('\n');
    const expected = lines.flatMap((line, i) => (line.startsWith('// @ts-expect-error') ? [i + 2] : []));
    expect(expected.length).toBe(8);
    const stripped = lines.map((line) => (line.startsWith('// @ts-expect-error') ? '' : line)).join('\n');
    const errors = diagnostics([negative], { [negative]: stripped });
    expect(
      errors.every((e) => e.file === negative),
      JSON.stringify(errors),
    ).toBe(true);
    expect(errors.length).toBeGreaterThanOrEqual(expected.length);
    expect([...new Set(errors.map((e) => e.line))]).toEqual(expected);
    // Unknown keys are excess properties (2353) or not assignable; wrong types are not assignable.
    expect(errors.map((e) => e.code).every((code) => [2353, 2322, 2345, 2561].includes(code))).toBe(true);
  });
});
