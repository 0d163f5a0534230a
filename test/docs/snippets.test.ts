// Dialect-independent: type checks; `npm test` runs it with the first database only.
/**
 * Every TypeScript snippet of the README and of docs/ (each ```ts block) type-checks against the
 * package's own types, as a user's file would: `citadel`, `citadel/html`, `citadel/migrations`,
 * `citadel/fastify`, `citadel/testing`, `citadel/client`, `citadel/plugin` resolve to the entry modules, strict, NodeNext. A snippet
 * that cannot stand alone says what it assumes in HTML comments right above its fence, which the
 * page does not show: `<!-- snippet: needs docs/page.md#2 -->` (it continues that snippet's code)
 * or `<!-- snippet: declare const config: CitadelOptions; -->` (code put before it). A snippet's
 * `./citadel.config.ts` is the demo's configuration (examples/blog), for the typed client's pages.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, '.test-output/snippets');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((path) =>
  path.endsWith('.md'),
);
const ENTRY = {
  citadel: 'index',
  'citadel/fastify': 'fastify',
  'citadel/html': 'html',
  'citadel/plugin': 'plugin-api',
  'citadel/client': 'client/index',
};

export interface Snippet {
  /** `docs/embedding.md#2`: the page and the block's number on it (from 1). */
  id: string;
  line: number;
  code: string;
  /** The snippet it continues, from `<!-- snippet: needs <id> -->`. */
  needs?: string;
  /** Code put before it, from `<!-- snippet: <code> -->`. */
  context: string[];
}

/** The ```ts blocks of a Markdown page. */
export function snippetsOf(page: string, text: string): Snippet[] {
  const snippets: Snippet[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```ts\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end += 1;
    const context: string[] = [];
    let needs: string | undefined;
    for (let above = i - 1; above >= 0; above -= 1) {
      const comment = /^<!-- snippet: (.*) -->$/.exec(lines[above]!);
      if (!comment) break;
      const need = /^needs (\S+)$/.exec(comment[1]!);
      if (need) needs = need[1];
      else context.unshift(comment[1]!);
    }
    snippets.push({
      id: `${page}#${snippets.length + 1}`,
      line: start + 1,
      code: lines.slice(start, end).join('\n'),
      needs,
      context,
    });
    i = end;
  }
  return snippets;
}

const snippets = DOCS.flatMap((page) => snippetsOf(page, readFileSync(join(ROOT, page), 'utf8')));

/** The snippet's code after what it continues and what it assumes. */
function codeOf(snippet: Snippet): string {
  const before = snippet.needs ? snippets.find((s) => s.id === snippet.needs) : undefined;
  if (snippet.needs && !before)
    throw new Error(`${snippet.id} needs ${snippet.needs}, which is not a snippet`);
  return [before ? codeOf(before) : '', ...snippet.context, snippet.code].join('\n');
}

/** The snippet's file, a module of its own. */
function fileOf(snippet: Snippet): string {
  return `${codeOf(snippet)}\nexport {};\n`;
}

describe('TypeScript snippets of the README and docs/', () => {
  it('there are snippets to check, on the pages that show code', () => {
    expect(snippets.length).toBeGreaterThan(20);
    expect(snippets.filter((s) => s.id.startsWith('README.md#')).length).toBeGreaterThan(0);
  });

  it('each one type-checks against the package (strict, NodeNext)', () => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    writeFileSync(
      join(OUT, 'citadel.config.ts'),
      "export { default } from '../../examples/blog/citadel.config.ts';\n",
    );
    const files = snippets.map((snippet) => {
      const path = join(OUT, `${snippet.id.replace(/[/.#]/g, '_')}.ts`);
      writeFileSync(path, fileOf(snippet));
      return { path, snippet };
    });
    const paths: Record<string, string[]> = {};
    for (const [specifier, entry] of Object.entries(ENTRY)) paths[specifier] = [`src/${entry}.ts`];
    for (const entry of ['migrations', 'testing']) paths[`citadel/${entry}`] = [`src/${entry}.ts`];
    const program = ts.createProgram(
      files.map((f) => f.path),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2023,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        baseUrl: ROOT,
        paths,
        types: ['node'],
      },
    );
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && d.file.fileName.startsWith(OUT))
      .map((d) => {
        const file = files.find((f) => f.path === d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${file.snippet.id} (line ${file.snippet.line}, +${line}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  }, 180_000);
});
