// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createApi, defineResource } from '../../src/index.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';
import { singularOf } from '../../src/api/openapi/summaries.ts';

const columns = { id: { type: 'integer' as const, readOnly: true }, title: { type: 'string' as const } };

function summaries(resource: Parameters<typeof defineResource>[0]): Record<string, string> {
  // Writes are served with a validator only.
  const formClass = { '*': Type.Object({ title: Type.String() }) };
  const api = createApi({
    apiName: 'T',
    apiBaseUrl: '/api',
    resources: [defineResource({ ...resource, formClass })],
  }).publish({
    version: 'v1',
  });
  const document = buildOpenApiDocument(api, 'v1') as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const found: Record<string, string> = {};
  for (const [path, item] of Object.entries(document.paths))
    for (const [verb, operation] of Object.entries(item))
      if (operation.summary) found[`${verb.toUpperCase()} ${path}`] = operation.summary;
  return found;
}

describe('operation summaries in plain English', () => {
  it('name one record and several from the resource name', () => {
    expect(summaries({ name: 'posts', columns })).toEqual({
      'GET /posts': 'List posts',
      'POST /posts': 'Create a post',
      'GET /posts/{id}': 'Get a post',
      'PUT /posts/{id}': 'Replace a post',
      'PATCH /posts/{id}': 'Update a post',
      'DELETE /posts/{id}': 'Delete a post',
    });
    const mine = summaries({ name: 'my_posts', columns });
    expect(mine['GET /my_posts']).toBe('List my posts');
    expect(mine['POST /my_posts']).toBe('Create a post');
    expect(summaries({ name: 'entries', columns })['GET /entries/{id}']).toBe('Get an entry');
    expect(summaries({ name: 'users', columns })['GET /users/{id}']).toBe('Get a user');
  });

  it('take the resource labels where the derived words read wrong', () => {
    const named = summaries({
      name: 'my_posts',
      columns,
      labels: { singular: 'post of mine', plural: 'my posts' },
    });
    expect(named['POST /my_posts']).toBe('Create a post of mine');
    expect(named['GET /my_posts']).toBe('List my posts');
    expect(
      summaries({ name: 'people', columns, labels: { singular: 'person' } })['DELETE /people/{id}'],
    ).toBe('Delete a person');
  });

  it('refuse labels that are not one short line of text', () => {
    for (const labels of [
      { singular: '' },
      { plural: '<b>x</b>' },
      { singular: 'a\nb' },
      { singular: ' post' },
    ])
      expect(() => defineResource({ name: 'posts', columns, labels })).toThrow(/labels\.\w+ must be/);
    expect(() => defineResource({ name: 'posts', columns, labels: { singulr: 'post' } as never })).toThrow(
      /labels\.singulr is not an option/,
    );
  });

  it('singular forms by the common endings', () => {
    for (const [plural, one] of [
      ['posts', 'post'],
      ['categories', 'category'],
      ['boxes', 'box'],
      ['addresses', 'address'],
      ['statuses', 'status'],
      ['notes', 'note'],
      ['keys', 'key'],
      ['blog posts', 'blog post'],
      ['status', 'status'],
    ])
      expect(singularOf(plural!)).toBe(one);
  });
});
