// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { ApiConfig, ResourceConfig } from '../../src/api/resource/types.ts';
import { buildOpenApiDocument, NO_NUL, UnknownApiVersionError } from '../../src/api/openapi/document.ts';

/** A small configuration of our own, independent of the demo: every shape the generator handles. */
function library(): ApiConfig {
  const books: ResourceConfig = {
    name: 'books',
    version: ['v1', 'v2'],
    columns: {
      id: { type: 'integer', readOnly: true },
      title: { type: 'string' },
      summary: { type: 'text', nullable: true },
      price: { type: 'number' },
      in_print: { type: 'boolean' },
      owner_id: { type: 'integer', readOnly: true },
      secret_note: { type: 'string', hidden: true },
      created_at: { type: 'datetime', readOnly: true },
    },
    relations: {
      reviews: { type: 'hasMany', resource: 'reviews', foreignKey: 'book_id' },
      owner: {
        type: 'belongsTo',
        table: 'users',
        foreignKey: 'owner_id',
        columns: ['id', 'username'],
        obfuscatedFields: ['id'],
      },
    },
    allowedRelations: ['reviews', 'owner'],
    obfuscatedFields: ['id', 'owner_id'],
    maxLimit: 50,
    requiredAuth: ['post', 'put', 'patch', 'delete'],
    searchable: ['title'],
    formClass: {
      post: Type.Object(
        {
          title: Type.String({ minLength: 3, maxLength: 200 }),
          summary: Type.Union([Type.String(), Type.Null()]),
          price: Type.Number({ exclusiveMinimum: 0 }),
          in_print: Type.Optional(Type.Boolean()),
          format: Type.Optional(Type.Union([Type.Literal('paper'), Type.Literal('ebook')])),
          tags: Type.Optional(Type.Array(Type.String(), { examples: [['a']] })),
          pair: Type.Optional(Type.Tuple([Type.String(), Type.Integer()])),
        },
        { additionalProperties: false },
      ),
      patch: Type.Partial(Type.Object({ title: Type.String({ minLength: 3 }), price: Type.Number() })),
    },
  };
  const reviews: ResourceConfig = {
    name: 'reviews',
    version: 'v1',
    columns: {
      id: { type: 'integer', readOnly: true },
      book_id: { type: 'integer' },
      body: { type: 'text' },
    },
    relations: { book: { type: 'belongsTo', resource: 'books', foreignKey: 'book_id' } },
    allowedRelations: ['book'],
    obfuscatedFields: ['id', 'book_id'],
    requiredAuth: ['delete'],
    exposedMethods: ['get', 'post', 'delete'],
    formClass: { '*': Type.Object({ book_id: Type.Integer(), body: Type.String({ minLength: 1 }) }) },
  };
  const notes: ResourceConfig = {
    name: 'shelf-notes',
    version: 'v2',
    columns: { id: { type: 'integer', readOnly: true }, text: { type: 'string' } },
    exposedMethods: ['get', 'put'],
  };
  return {
    apiName: 'Library API',
    apiBaseUrl: '/api',
    resources: [books, reviews, notes],
    publications: [{ version: 'v1' }, { version: 'v2' }],
  };
}

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, unknown> };
};

const copy = (document: unknown) => structuredClone(document) as Doc;

/** Every schema node under `node` whose property named `field` is declared with an integer type. */
function integerTypedFields(node: unknown, fields: Set<string>, found: string[] = [], path = '$'): string[] {
  if (Array.isArray(node))
    node.forEach((child, i) => integerTypedFields(child, fields, found, `${path}[${i}]`));
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      if (key === 'properties' && value && typeof value === 'object') {
        for (const [name, schema] of Object.entries(value)) {
          const type = (schema as { type?: unknown }).type;
          if (fields.has(name) && (type === 'integer' || type === 'number'))
            found.push(`${path}.properties.${name}`);
        }
      }
      integerTypedFields(value, fields, found, `${path}.${key}`);
    }
  }
  return found;
}

describe('buildOpenApiDocument (own configuration)', () => {
  for (const [version, openapi] of [
    ['v1', '3.0'],
    ['v2', '3.0'],
    ['v1', '3.1'],
    ['v2', '3.1'],
  ] as const) {
    it(`produces a valid OpenAPI ${openapi} document for ${version}`, async () => {
      const document = copy(buildOpenApiDocument(library(), version, { openapi }));
      // 3.0.3 unless asked otherwise, by the call or by the API's `openapi`.
      if (openapi === '3.0') expect(copy(buildOpenApiDocument(library(), version))).toEqual(document);
      else expect(copy(buildOpenApiDocument({ ...library(), openapi }, version))).toEqual(document);
      const result = await validate(document as unknown as Parameters<typeof validate>[0]);
      if (!result.valid) throw new Error(compileErrors(result));
      expect(result.valid).toBe(true);
      expect(document.openapi).toBe(openapi === '3.0' ? '3.0.3' : '3.1.0');
      expect(document.info).toMatchObject({ title: 'Library API', version });
      expect(document.servers).toEqual([{ url: `/api/${version}` }]);
    });
  }

  it('lists only the resources published in each version', () => {
    const api = library();
    const v1 = copy(buildOpenApiDocument(api, 'v1'));
    const v2 = copy(buildOpenApiDocument(api, 'v2'));
    expect(Object.keys(v1.paths).sort()).toEqual(['/books', '/books/{id}', '/reviews', '/reviews/{id}']);
    expect(Object.keys(v2.paths).sort()).toEqual([
      '/books',
      '/books/{id}',
      '/shelf-notes',
      '/shelf-notes/{id}',
    ]);
    expect(v1.components.schemas.Reviews).toBeDefined();
    expect(v2.components.schemas.Reviews).toBeUndefined();
    expect(v2.components.schemas.ShelfNotes).toBeDefined();
    // v2 books still embed reviews on derive, inline because reviews has no component there.
    const embedded = (
      v2.components.schemas.Books!.properties as Record<string, { items: Record<string, unknown> }>
    ).reviews!;
    expect(embedded.items.$ref).toBeUndefined();
    expect(JSON.stringify(v2)).not.toContain('#/components/schemas/Reviews');
  });

  it('documents only verbs that are exposed and, for writes, bound to a validator', () => {
    const v1 = copy(buildOpenApiDocument(library(), 'v1'));
    const verbs = (path: string) =>
      Object.keys(v1.paths[path]!)
        .filter((k) => k !== 'parameters')
        .sort();
    expect(verbs('/books')).toEqual(['get', 'post']);
    expect(verbs('/books/{id}')).toEqual(['delete', 'get', 'patch']); // no put validator
    expect(verbs('/reviews')).toEqual(['get', 'post']);
    expect(verbs('/reviews/{id}')).toEqual(['delete', 'get']); // put/patch not exposed
    const v2 = copy(buildOpenApiDocument(library(), 'v2'));
    expect(Object.keys(v2.paths['/shelf-notes/{id}']!)).not.toContain('put'); // exposed but no validator
  });

  it('types obfuscated fields as strings everywhere, never as integers', () => {
    for (const version of ['v1', 'v2']) {
      const document = copy(buildOpenApiDocument(library(), version));
      // shelf-notes obfuscates nothing: leave it out of this check (it is the control below).
      delete document.components.schemas.ShelfNotes;
      for (const path of Object.keys(document.paths))
        if (path.startsWith('/shelf-notes')) delete document.paths[path];
      expect(integerTypedFields(document, new Set(['id', 'owner_id', 'book_id']))).toEqual([]);
      const id = (document.paths['/books/{id}']!.parameters as unknown as { schema: unknown }[])[0]!;
      // The Sqids alphabet, SQIDS_MIN_LENGTH (default 8) up to the longest id the engine decodes
      // (2^31 - 1 takes 7 characters, padded to 8).
      expect(id.schema).toEqual({ type: 'string', pattern: '^[0-9A-Za-z]{8}$' });
    }
    // The control: a resource without obfuscation keeps integer ids, so the check above can fail.
    const v2 = copy(buildOpenApiDocument(library(), 'v2'));
    expect(integerTypedFields(v2.components.schemas.ShelfNotes, new Set(['id']))).toHaveLength(1);
  });

  it('converts TypeBox validators to OpenAPI 3.1 (JSON Schema 2020-12) schemas', () => {
    const schemas = copy(buildOpenApiDocument(library(), 'v1', { openapi: '3.1' })).components.schemas;
    const create = schemas.BooksCreate as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: unknown;
    };
    expect(create.additionalProperties).toBe(false);
    expect(create.required).toEqual(['title', 'summary', 'price']);
    // The engine refuses U+0000 in any string of a payload.
    expect(create.properties.title).toEqual({
      type: 'string',
      minLength: 3,
      maxLength: 200,
      pattern: NO_NUL,
    });
    expect(create.properties.summary).toEqual({
      anyOf: [{ type: 'string', pattern: NO_NUL }, { type: 'null' }],
    });
    expect(create.properties.price).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(create.properties.format).toEqual({
      anyOf: [
        { type: 'string', const: 'paper' },
        { type: 'string', const: 'ebook' },
      ],
    });
    expect(create.properties.tags).toEqual({
      type: 'array',
      items: { type: 'string', pattern: NO_NUL },
      examples: [['a']],
    });
    expect(create.properties.pair!.prefixItems).toEqual([
      { type: 'string', pattern: NO_NUL },
      { type: 'integer' },
    ]);
    // Nested children: the child's create validator, its foreign key supplied by the parent.
    const reviews = create.properties.reviews as {
      type: string;
      items: { required: string[]; properties: Record<string, unknown> };
    };
    expect(reviews.type).toBe('array');
    expect(reviews.items.required).toEqual(['body']);
    // The engine sets it from the parent and refuses it in the payload: not declared.
    expect(reviews.items.properties.book_id).toBeUndefined();
    // Hidden columns never appear.
    expect(JSON.stringify(schemas)).not.toContain('secret_note');
    const record = schemas.Books as { properties: Record<string, Record<string, unknown>> };
    expect(record.properties.summary).toEqual({ type: ['string', 'null'] });
    expect(record.properties.created_at).toEqual({ type: 'string', format: 'date-time', readOnly: true });
    expect(record.properties.owner).toMatchObject({ oneOf: [expect.any(Object), { type: 'null' }] });
  });

  it('describes list parameters, the pagination envelope and problem responses', () => {
    const document = copy(buildOpenApiDocument(library(), 'v1'));
    const list = document.paths['/books']!.get as {
      parameters: { name: string; schema: Record<string, unknown>; description: string }[];
      responses: Record<string, unknown>;
    };
    expect(list.parameters.map((p) => p.name)).toEqual([
      'page',
      'limit',
      'cursor',
      'count',
      'sort',
      'search',
      'derive',
      'fields',
      'fields[reviews]',
      'fields[reviews.book]',
      'fields[reviews.book.reviews]',
      'fields[reviews.book.owner]',
      'fields[owner]',
    ]);
    expect(list.parameters[1]!.description).toContain('lowered to 50');
    expect(list.parameters[6]!.description).toContain('`reviews`, `owner`');
    expect(list.parameters[3]!.schema).toEqual({
      type: 'string',
      enum: ['exact', 'none', 'estimated'],
      default: 'exact',
    });
    expect(Object.keys(list.responses)).toEqual(['200', '400', '401', '500', 'default']);
    const reviewsList = document.paths['/reviews']!.get as { parameters: { name: string }[] };
    expect(reviewsList.parameters.map((p) => p.name).slice(0, 7)).toEqual([
      'page',
      'limit',
      'cursor',
      'count',
      'sort',
      'search',
      'derive',
    ]);
    const pagination = document.components.schemas.Pagination as { required: string[] };
    expect(pagination.required).toEqual([
      'page',
      'limit',
      'total',
      'totalPages',
      'hasMore',
      'nextPage',
      'prevPage',
      'nextCursor',
    ]);
    const problem = document.components.schemas.Problem as { properties: Record<string, unknown> };
    expect(Object.keys(problem.properties)).toEqual([
      'type',
      'title',
      'status',
      'detail',
      'instance',
      'invalid_params',
    ]);
    const create = document.paths['/books']!.post as {
      responses: Record<string, unknown>;
      requestBody: unknown;
    };
    expect(Object.keys(create.responses)).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '500',
      'default',
    ]);
    expect(JSON.stringify(create.requestBody)).toContain('"maxItems":1000');
    const responses = (
      document.components as unknown as { responses: Record<string, { content: Record<string, unknown> }> }
    ).responses;
    expect(Object.keys(responses.UnprocessableContent!.content)).toEqual(['application/problem+json']);
  });

  it('states security and the required ability per operation', () => {
    const document = copy(buildOpenApiDocument(library(), 'v1'));
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      cookieAuth: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'citadel_session' }),
    });
    const create = document.paths['/books']!.post!;
    expect(create['x-required-ability']).toBe('books:create');
    expect(create.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(create.description).toContain('`books:create`');
    expect(document.paths['/books/{id}']!.patch!['x-required-ability']).toBe('books:update');
    expect(document.paths['/reviews/{id}']!.delete!['x-required-ability']).toBe('reviews:delete');
    // Open operations: anonymous allowed (the empty requirement), no ability named.
    const open = document.paths['/reviews']!.post!;
    expect(open['x-required-ability']).toBeUndefined();
    expect(open.security).toEqual([{}, { bearerAuth: [] }, { cookieAuth: [] }]);
    // A bearer token that is not valid is a 401 on every operation.
    expect(Object.keys(open.responses as object)).toContain('401');
    // …and 403 where a nested parent may be created: a book needs books:create.
    expect(Object.keys(open.responses as object)).toContain('403');
    expect(Object.keys(document.paths['/reviews']!.get!.responses as object)).not.toContain('403');
  });

  it('caches one document per configuration and version, and rejects unknown versions', () => {
    const api = library();
    expect(buildOpenApiDocument(api, 'v1')).toBe(buildOpenApiDocument(api, 'v1'));
    expect(buildOpenApiDocument(api, 'v1')).not.toBe(buildOpenApiDocument(api, 'v2'));
    expect(Object.isFrozen(buildOpenApiDocument(api, 'v1'))).toBe(true);
    expect(() => buildOpenApiDocument(api, 'v9')).toThrow(UnknownApiVersionError);
    expect(() => buildOpenApiDocument(api, 'v9')).toThrow('unknown API version "v9" (published: v1, v2)');
  });
});
