// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compileErrors, validate } from '@readme/openapi-parser';
import { blogApi } from '../../examples/blog/api.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import type { OpenApiVersion } from '../../src/core/openapi.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  required?: string[];
};
type Doc = {
  info: { title: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
};
const documentOf = (version: string, openapi?: OpenApiVersion) =>
  structuredClone(buildOpenApiDocument(blogApi, version, openapi ? { openapi } : {})) as Doc;

/** Every place a property of one of these names is typed as a number. */
function numericIds(node: unknown, names: Set<string>, path = '$', found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((child, i) => numericIds(child, names, `${path}[${i}]`, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties') {
        for (const [name, schema] of Object.entries(value as Record<string, Schema>)) {
          if (names.has(name) && (schema.type === 'integer' || schema.type === 'number'))
            found.push(`${path}.${name}`);
        }
      }
      if (key === 'parameters' && Array.isArray(value)) {
        for (const p of value as { name: string; schema?: Schema }[]) {
          if (names.has(p.name) && (p.schema?.type === 'integer' || p.schema?.type === 'number'))
            found.push(`${path}.parameters.${p.name}`);
        }
      }
      numericIds(value, names, `${path}.${key}`, found);
    }
  }
  return found;
}

describe('OpenAPI documents of the demo blog API', () => {
  for (const version of ['v1', 'v2']) {
    it(`${version} passes @readme/openapi-parser validation`, async () => {
      const result = await validate(documentOf(version) as unknown as Parameters<typeof validate>[0]);
      if (!result.valid) throw new Error(compileErrors(result));
      expect(result.valid).toBe(true);
      const document = documentOf(version);
      expect(document.info.title).toBe('Citadel demo blog API');
      expect(document.servers).toEqual([{ url: `/api/${version}` }]);
    });

    it(`${version} never types an obfuscated field as a number`, () => {
      // posts.id, comments.id, comments.post_id, the author's id (obfuscated in the relation), path ids.
      expect(numericIds(documentOf(version), new Set(['id', 'post_id']))).toEqual([]);
    });
  }

  it("v1 lists posts, comments, the caller's own posts and projects, v2 only posts", () => {
    const v1 = documentOf('v1');
    const v2 = documentOf('v2');
    expect(Object.keys(v1.paths).sort()).toEqual([
      '/comments',
      '/comments/{id}',
      '/my_posts',
      '/my_posts/{id}',
      '/posts',
      '/posts/live',
      '/posts/{id}',
      '/projects',
      '/projects/live',
      '/projects/{id}',
    ]);
    // my_posts: read only, and only by a signed-in caller.
    expect(Object.keys(v1.paths['/my_posts']!)).toEqual(['get']);
    expect(Object.keys(v1.paths['/my_posts/{id}']!).sort()).toEqual(['get', 'parameters']);
    expect(v1.paths['/my_posts']!.get!['x-required-ability']).toBe('my_posts:read');
    expect(Object.keys(v2.paths).sort()).toEqual(['/posts', '/posts/live', '/posts/{id}']);
    expect(Object.keys(v1.components.schemas)).toContain('Comments');
    expect(Object.keys(v2.components.schemas).filter((name) => name.startsWith('Comments'))).toEqual([]);
    // comments: read by anyone, created by anyone, changed and deleted by the post's author; no put validator.
    expect(Object.keys(v1.paths['/comments/{id}']!).sort()).toEqual(['delete', 'get', 'parameters', 'patch']);
  });

  it('is 3.0.3 by default, 3.1.0 when asked, null and const said as each version says them', () => {
    const v30 = documentOf('v1') as Doc & { openapi: string };
    const v31 = documentOf('v1', '3.1') as Doc & { openapi: string };
    expect([v30.openapi, v31.openapi]).toEqual(['3.0.3', '3.1.0']);
    const author30 = v30.components.schemas.Posts!.properties!.author as Record<string, unknown>;
    expect(author30).toMatchObject({ type: 'object', nullable: true });
    expect(JSON.stringify(v30)).not.toMatch(/"type":\[|"const":|"examples":\[|"type":"null"/);
    // A comment names its post by post_id or by a post object: exactly one (else 422).
    for (const document of [v30, v31]) {
      expect((document.components.schemas.CommentsCreate as { allOf: unknown[] }).allOf).toEqual([
        {
          oneOf: [{ required: ['post_id'] }, { required: ['post'] }],
          description: expect.any(String),
        },
      ]);
    }
  });

  it('describes the posts resource as the contract does', () => {
    const v1 = documentOf('v1', '3.1');
    const record = v1.components.schemas.Posts!;
    expect(Object.keys(record.properties!)).toEqual([
      'id',
      'title',
      'body',
      'status',
      'pinned',
      'tags',
      'created_at',
      'updated_at',
      'excerpt',
      'comments',
      'author',
    ]);
    // The author: an object with a typed username, or null.
    const author = (record.properties!.author as { oneOf: Schema[] }).oneOf[0]!;
    expect(author.properties!.id).toMatchObject({ type: 'string' });
    expect(author.properties!.username).toEqual({ type: 'string' });
    expect((record.properties!.author as { oneOf: Schema[] }).oneOf[1]).toEqual({ type: 'null' });
    const create = v1.components.schemas.PostsCreate!;
    expect(Object.keys(create.properties!)).toEqual([
      'title',
      'body',
      'status',
      'pinned',
      'tags',
      'comments',
    ]);
    // PATCH takes the comments as changes: create, update (with id) or delete (id and _delete).
    const changes = v1.components.schemas.PostsUpdate!.properties!.comments!;
    expect((changes.items as { oneOf: Schema[] }).oneOf).toHaveLength(3);
    // The engine sets a nested comment's post_id from the post and refuses it in the payload.
    expect(create.properties!.comments!.items!.properties!.post_id).toBeUndefined();
    const list = v1.paths['/posts']!.get as { parameters: { name: string; description: string }[] };
    expect(list.parameters.map((p) => p.name).filter((name) => !name.startsWith('filter'))).toEqual([
      'page',
      'limit',
      'cursor',
      'count',
      'sort',
      'search',
      'status',
      'pinned',
      'derive',
      'fields',
      'fields[comments]',
      'fields[comments.post]',
      'fields[comments.post.comments]',
      'fields[comments.post.author]',
      'fields[author]',
    ]);
    expect(list.parameters.find((p) => p.name === 'limit')!.description).toContain('lowered to 50');
    // comments filter by post_id: an obfuscated key, so a string.
    const comments = v1.paths['/comments']!.get as { parameters: { name: string; schema: unknown }[] };
    expect(comments.parameters.find((p) => p.name === 'post_id')!.schema).toEqual({ type: 'string' });
    // A comment may name its post as an object instead of post_id (reference or new post).
    const commentCreate = v1.components.schemas.CommentsCreate!;
    expect(commentCreate.required).toEqual(['author_name', 'body']);
    expect((commentCreate.properties!.post as { oneOf: Schema[] }).oneOf[0]!.properties!.id).toMatchObject({
      type: 'string',
    });
    expect(v1.paths['/posts']!.post!['x-required-ability']).toBe('posts:create');
    expect(v1.paths['/posts/{id}']!.put!['x-required-ability']).toBe('posts:update');
    expect(v1.paths['/posts/{id}']!.delete!['x-required-ability']).toBe('posts:delete');
    expect(v1.paths['/posts']!.get!['x-required-ability']).toBeUndefined();
    expect(v1.paths['/comments']!.post!['x-required-ability']).toBeUndefined();
    expect(v1.paths['/comments/{id}']!.delete!['x-required-ability']).toBe('comments:delete');
  });
});

describe('citadel openapi', () => {
  const cli = resolve(ROOT, 'bin/citadel.mjs');

  it('prints the document of the demo API (the repository config) for a version', async () => {
    const { stdout } = await run(process.execPath, [cli, 'openapi', '--api-version', 'v2'], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    });
    expect(JSON.parse(stdout)).toEqual(documentOf('v2'));
  });

  it('exits 1 with one line for an unknown version', async () => {
    const failure = await run(process.execPath, [cli, 'openapi', '--api-version', 'v9'], { cwd: ROOT }).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr.trim().split('\n')).toEqual([
      'citadel: error: unknown API version "v9" (published: v1, v2)',
    ]);
  });
});
