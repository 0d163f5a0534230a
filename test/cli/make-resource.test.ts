// Dialect-independent: code generation and file lookup; `npm test` runs it with the first database only.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeResource, MakeResourceError, resourceSkeleton } from '../../src/api/cli/make-resource.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import type { ResourceConfig } from '../../src/api/resource/types.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const INDEX = pathToFileURL(join(ROOT, 'src/index.ts')).href;

describe('citadel make:resource', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'citadel-make-resource-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('writes a skeleton that is a working resource configuration', async () => {
    const lines: string[] = [];
    const path = await makeResource('articles', join(dir, 'resources'), (line) => lines.push(line));
    expect(path).toBe(join(dir, 'resources', 'articles.resource.ts'));
    expect(lines).toEqual([`created ${path}`]);
    const source = await readFile(path, 'utf8');
    expect(source).toContain("import { defineResource } from 'citadel';");
    expect(source).toContain("name: 'articles'");
    // Load it for real: the package import pointed at this checkout's entry point.
    const runnable = join(dir, 'articles.runnable.ts');
    await writeFile(runnable, source.replace("from 'citadel'", `from '${INDEX}'`));
    const resource = ((await import(pathToFileURL(runnable).href)) as { default: ResourceConfig }).default;
    expect(resource.name).toBe('articles');
    expect(Object.keys(resource.formClass ?? {})).toEqual(['post', 'put', 'patch']);
    // The engine's own checks accept it, and the document generator describes it.
    const { createApi } = (await import(INDEX)) as typeof import('../../src/index.ts');
    const api = createApi({ apiName: 'Skeleton', resources: [resource] }).publish({ version: 'v1' });
    const document = buildOpenApiDocument(api, 'v1') as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths['/articles/{id}']!).sort()).toEqual([
      'delete',
      'get',
      'parameters',
      'patch',
      'put',
    ]);
  });

  it('refuses to overwrite an existing file', async () => {
    const path = join(dir, 'notes.resource.ts');
    await writeFile(path, '// mine\n');
    await expect(makeResource('notes', dir, () => {})).rejects.toThrow(MakeResourceError);
    await expect(makeResource('notes', dir, () => {})).rejects.toThrow('already exists');
    expect(await readFile(path, 'utf8')).toBe('// mine\n');
  });

  it('rejects names that are not a URL segment', async () => {
    for (const name of ['Articles', '../escape', 'a b', '9lives', '']) {
      await expect(makeResource(name, dir, () => {})).rejects.toThrow(MakeResourceError);
    }
    expect(resourceSkeleton('blog-posts')).toContain("table: 'blog_posts'");
  });

  it('runs from the command line: writes once, then exits 1 with one line', async () => {
    const cli = join(ROOT, 'bin/citadel.mjs');
    const target = join(dir, 'cli');
    const first = await run(process.execPath, [cli, 'make:resource', 'tags', '--dir', target], { cwd: dir });
    expect(first.stdout.trim()).toBe(`created ${join(target, 'tags.resource.ts')}`);
    const second = await run(process.execPath, [cli, 'make:resource', 'tags', '--dir', target], {
      cwd: dir,
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(second?.code).toBe(1);
    expect(second?.stderr.trim().split('\n')).toEqual([
      `citadel: error: ${join(target, 'tags.resource.ts')} already exists; not overwriting it`,
    ]);
  });
});
