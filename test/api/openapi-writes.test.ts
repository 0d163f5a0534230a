// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { compileErrors, validate } from '@readme/openapi-parser';
import type { ApiConfig } from '../../src/api/resource/types.ts';
import { buildOpenApiDocument } from '../../src/api/openapi/document.ts';

type Schema = {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  items?: Schema;
  description?: string;
  additionalProperties?: unknown;
};
type Parameter = { name: string; in: string; schema: Schema; description: string };
type Doc = {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: { schemas: Record<string, Schema> };
};

/** Authors, their books (filterable), and chapters of books: belongsTo objects at two levels. */
function shelf(): ApiConfig {
  return {
    apiName: 'Shelf',
    apiBaseUrl: '/api',
    publications: [{ version: 'v1' }],
    resources: [
      {
        name: 'authors',
        columns: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } },
        obfuscatedFields: ['id'],
        requiredAuth: ['post'],
        formClass: { post: Type.Object({ name: Type.String({ minLength: 1 }) }) },
      },
      {
        name: 'books',
        columns: {
          id: { type: 'integer', readOnly: true },
          author_id: { type: 'integer' },
          title: { type: 'string', description: 'The title.' },
          pages: { type: 'integer' },
          in_print: { type: 'boolean' },
          published_at: { type: 'datetime', nullable: true },
        },
        relations: {
          author: { type: 'belongsTo', resource: 'authors', foreignKey: 'author_id' },
          chapters: { type: 'hasMany', resource: 'chapters', foreignKey: 'book_id' },
        },
        allowedRelations: ['author', 'chapters'],
        obfuscatedFields: ['id', 'author_id'],
        filterable: ['author_id', 'title', 'pages', 'in_print', 'published_at'],
        formClass: {
          post: Type.Object({ author_id: Type.String(), title: Type.String(), pages: Type.Integer() }),
          patch: Type.Object({ title: Type.Optional(Type.String()) }),
        },
      },
      {
        name: 'chapters',
        columns: {
          id: { type: 'integer', readOnly: true },
          book_id: { type: 'integer' },
          heading: { type: 'string' },
        },
        relations: { book: { type: 'belongsTo', resource: 'books', foreignKey: 'book_id' } },
        allowedRelations: ['book'],
        formClass: { post: Type.Object({ book_id: Type.Integer(), heading: Type.String() }) },
      },
    ],
  };
}

const documentOf = () => structuredClone(buildOpenApiDocument(shelf(), 'v1')) as unknown as Doc;

describe('OpenAPI document: filters and belongsTo inputs', () => {
  it('stays a valid OpenAPI 3.1 document', async () => {
    const result = await validate(documentOf() as unknown as Parameters<typeof validate>[0]);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('lists one equality parameter per filterable column, typed as the engine parses it', () => {
    const parameters = documentOf().paths['/books']!.get!.parameters!;
    const filters = Object.fromEntries(parameters.map((p) => [p.name, p]));
    const plain = parameters.filter((p) => !p.name.startsWith('filter'));
    expect(plain.map((p) => p.name)).toEqual([
      'page',
      'limit',
      'cursor',
      'count',
      'sort',
      'search',
      'author_id',
      'title',
      'pages',
      'in_print',
      'published_at',
      'derive',
      'fields',
      'fields[author]',
      'fields[chapters]',
      'fields[chapters.book]',
      'fields[chapters.book.author]',
      'fields[chapters.book.chapters]',
    ]);
    // Obfuscated keys are public ids: strings, never integers.
    expect(filters.author_id!.schema).toEqual({ type: 'string' });
    expect(filters.author_id!.description).toContain('obfuscated');
    expect(filters.pages!.schema).toMatchObject({ type: 'integer' });
    // A query string carries text: true or false.
    expect(filters.in_print!.schema).toEqual({ type: 'string', enum: ['true', 'false'] });
    expect(filters['filter[pages][gte]']!.schema).toMatchObject({ type: 'integer' });
    expect(filters['filter[author_id][gt]']).toBeUndefined(); // the order of obfuscated ids is secret
    expect(filters['filter[title][contains]']).toBeDefined();
    expect(filters.published_at!.schema).toEqual({ type: 'string', format: 'date-time' });
    expect(filters.title!.description).toContain('The title.');
    for (const filter of plain.slice(6, 11)) expect(filter.in).toBe('query');
    // Single reads take no filters; resources without filterable columns list none.
    expect(
      documentOf()
        .paths['/books/{id}']!.get!.parameters!.map((p) => p.name)
        .filter((name) => !name.startsWith('fields[')),
    ).toEqual(['derive', 'fields', 'If-None-Match']);
    expect(documentOf().paths['/authors']!.get!.parameters!.map((p) => p.name)).toEqual([
      'page',
      'limit',
      'cursor',
      'count',
      'sort',
      'search',
      'fields',
    ]);
  });

  it('describes a belongsTo object: a reference by public id, or a new parent with its validator', () => {
    const schemas = documentOf().components.schemas;
    const create = schemas.BooksCreate!;
    // The foreign key is no longer required: the relation object may give it instead.
    expect(create.required).toEqual(['title', 'pages']);
    expect(create.properties!.author_id!.description).toContain('Required unless `author` is given');
    const author = create.properties!.author!;
    expect(author.oneOf).toHaveLength(2);
    expect(author.oneOf![0]).toEqual({
      type: 'object',
      description: expect.any(String),
      properties: { id: expect.objectContaining({ type: 'string' }) },
      required: ['id'],
      additionalProperties: false,
    });
    expect(author.oneOf![1]!.required).toEqual(['name']);
    expect(author.oneOf![1]!.additionalProperties).toBe(false);
    // A nested chapter gets book_id from its parent: it cannot name a book object.
    const chapter = create.properties!.chapters!.items!;
    // (and its book_id is not declared: the engine refuses it there).
    expect(Object.keys(chapter.properties!)).toEqual(['heading']);
    // A chapter posted on its own may create its book, which may in turn name or create its author.
    const chapterCreate = schemas.ChaptersCreate!;
    expect(chapterCreate.required).toEqual(['heading']);
    const newBook = chapterCreate.properties!.book!.oneOf![1]!;
    expect(newBook.properties!.author!.oneOf).toHaveLength(2);
    expect(chapterCreate.properties!.book!.oneOf![0]!.properties!.id).toMatchObject({ type: 'string' });
    // PATCH takes no belongsTo objects; its children come as an array of changes.
    expect(Object.keys(schemas.BooksUpdate!.properties!)).toEqual(['title', 'chapters']);
  });
});
