// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { Type } from '@sinclair/typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  finishOpenApiDocument,
  parseOpenApiVersion,
  toOpenApi30,
  toOpenApi30Schema,
} from '../../src/core/openapi.ts';
import { jsonSchemaDocument } from '../support/openapi-json-schema.ts';

describe('toOpenApi30Schema: JSON Schema 2020-12 (OpenAPI 3.1) → OpenAPI 3.0.3 Schema Object', () => {
  it('says null, const, examples, bounds and binary as 3.0.3 does', () => {
    expect(toOpenApi30Schema({ type: ['string', 'null'], minLength: 1 })).toEqual({
      type: 'string',
      minLength: 1,
      nullable: true,
    });
    expect(toOpenApi30Schema({ type: ['integer', 'string'] })).toEqual({
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    expect(toOpenApi30Schema({ const: 'success' })).toEqual({ enum: ['success'] });
    expect(toOpenApi30Schema({ type: 'string', examples: ['a', 'b'] })).toEqual({
      type: 'string',
      example: 'a',
    });
    expect(toOpenApi30Schema({ type: 'number', exclusiveMinimum: 0, maximum: 10 })).toEqual({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
    });
    // The stricter bound wins when both are given.
    expect(toOpenApi30Schema({ type: 'number', exclusiveMaximum: 5, maximum: 3 })).toEqual({
      type: 'number',
      maximum: 3,
    });
    expect(toOpenApi30Schema({ type: 'string', contentEncoding: 'base64' })).toEqual({
      type: 'string',
      format: 'byte',
    });
    expect(toOpenApi30Schema(true)).toEqual({});
    expect(toOpenApi30Schema(false)).toEqual({ not: {} });
    expect(toOpenApi30Schema({ type: 'array' })).toEqual({ type: 'array', items: {} });
    expect(toOpenApi30Schema({ type: ['null'], description: 'Nothing.' })).toEqual({
      type: 'object',
      nullable: true,
      enum: [null],
      description: 'Nothing.',
    });
    // No tuples in 3.0: the item kinds and the length (the order is lost: the one widening).
    expect(
      toOpenApi30Schema({
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'integer' }],
        items: false,
        minItems: 2,
        maxItems: 2,
      }),
    ).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      minItems: 2,
      maxItems: 2,
    });
  });

  it('turns null branches into nullable schemas, and $ref siblings into allOf', () => {
    // TypeBox's Union([Literal, Null]): an enum that lists null.
    expect(
      toOpenApi30Schema(Type.Union([Type.Literal('a'), Type.Null()], { description: 'A or nothing.' })),
    ).toEqual({ type: 'string', enum: ['a', null], nullable: true, description: 'A or nothing.' });
    expect(toOpenApi30Schema({ oneOf: [{ $ref: '#/components/schemas/Post' }, { type: 'null' }] })).toEqual({
      oneOf: [{ $ref: '#/components/schemas/Post' }, { type: 'object', nullable: true, enum: [null] }],
    });
    expect(toOpenApi30Schema({ $ref: '#/components/schemas/Post', description: 'The post.' })).toEqual({
      allOf: [{ $ref: '#/components/schemas/Post' }],
      description: 'The post.',
    });
    expect(toOpenApi30Schema({ type: 'null' })).toEqual({ type: 'object', nullable: true, enum: [null] });
    // Nested schemas are converted too.
    expect(
      toOpenApi30Schema({
        type: 'object',
        properties: { a: { type: ['string', 'null'] } },
        additionalProperties: { const: 1 },
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string', nullable: true } },
      additionalProperties: { enum: [1] },
    });
  });

  it('accepts the same values as the 3.1 schema (read back as 3.0.3 says, then checked by Ajv)', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas = [
      Type.Union([Type.String({ minLength: 2 }), Type.Null()]),
      Type.Union([Type.Literal('x'), Type.Literal('y'), Type.Null()]),
      Type.Object({ n: Type.Number({ exclusiveMinimum: 1, exclusiveMaximum: 4 }), k: Type.Literal(true) }),
      Type.Array(Type.Union([Type.Integer(), Type.Null()]), { maxItems: 2 }),
    ].map((schema) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>);
    const value = fc.oneof(
      fc.constantFrom(null, 'x', 'y', 'z', '', 'ab', 0, 1, 2.5, 4, true, [], [1, null], [1, 2, 3]),
      fc.record({ n: fc.double({ min: 0, max: 5, noNaN: true }), k: fc.constantFrom(true, false) }),
    );
    for (const schema of schemas) {
      const v31 = ajv.compile(schema);
      const v30 = ajv.compile(
        jsonSchemaDocument({ openapi: '3.0.3', schema: toOpenApi30Schema(schema) }).schema,
      );
      fc.assert(fc.property(value, (v) => v31(v) === v30(v)));
    }
  });
});

describe('toOpenApi30 and the version setting', () => {
  const document = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'T', version: '1', summary: 'S', license: { name: 'MIT', identifier: 'MIT' } },
    webhooks: {},
    paths: {
      '/a': {
        get: {
          parameters: [
            {
              name: 'q',
              in: 'query',
              schema: { type: ['string', 'null'] },
              examples: { one: { value: 'x' } },
            },
          ],
          responses: {
            200: { description: 'ok', content: { 'application/json': { schema: { const: 1 } } } },
          },
        },
      },
    },
    components: { schemas: { A: { examples: [1] } }, pathItems: {} },
  };

  it('converts every Schema Object and leaves out the 3.1-only parts', () => {
    expect(toOpenApi30(document)).toEqual({
      openapi: '3.0.3',
      info: { title: 'T', version: '1', license: { name: 'MIT' } },
      paths: {
        '/a': {
          get: {
            parameters: [
              {
                name: 'q',
                in: 'query',
                schema: { type: 'string', nullable: true },
                examples: { one: { value: 'x' } },
              },
            ],
            responses: {
              200: { description: 'ok', content: { 'application/json': { schema: { enum: [1] } } } },
            },
          },
        },
      },
      components: { schemas: { A: { example: 1 } } },
    });
    expect(finishOpenApiDocument(document, '3.1')).toEqual({ ...document, openapi: '3.1.0' });
    expect(finishOpenApiDocument(document)).toEqual(toOpenApi30(document));
  });

  it('reads 3.0 and 3.1 (and their full spellings); refuses anything else', () => {
    expect(parseOpenApiVersion(undefined, 'openapi')).toBe('3.0');
    expect(parseOpenApiVersion('3.0.3', 'openapi')).toBe('3.0');
    expect(parseOpenApiVersion('3.1', 'openapi')).toBe('3.1');
    expect(parseOpenApiVersion('3.1.0', 'openapi')).toBe('3.1');
    expect(() => parseOpenApiVersion('3.2', 'openapi')).toThrow(
      "openapi must be '3.0' or '3.1', not \"3.2\"",
    );
  });
});
