// Dialect-independent: OpenAPI documents built from declarations; `npm test` runs it with the first database only.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileApi } from '../../src/api/resource/compile.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { createApi, defineResource, type ResourceConfig } from '../../src/index.ts';

const base = (): ResourceConfig => ({
  name: 'things',
  columns: {
    id: { type: 'integer', readOnly: true },
    name: { type: 'string' },
    owner_id: { type: 'integer' },
  },
});

function configError(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('no ConfigError');
}

describe('defineResource and createApi: start-up validation', () => {
  it('returns a valid declaration unchanged', () => {
    const resource = base();
    expect(defineResource(resource)).toBe(resource);
  });

  it.each<[string, Partial<ResourceConfig>, string]>([
    ['an unknown allowed relation', { allowedRelations: ['owner'] }, 'allowedRelations names "owner"'],
    [
      'an obfuscated field that is not a column',
      { obfuscatedFields: ['uuid'] },
      'obfuscatedFields names "uuid"',
    ],
    ['an obfuscated text column', { obfuscatedFields: ['name'] }, 'must be an integer column'],
    ['a sortable field that is not a column', { sortable: ['rank'] }, 'sortable names "rank"'],
    ['a searchable field that is not a column', { searchable: ['bio'] }, 'searchable names "bio"'],
    ['a primary key that is not a column', { primaryKey: 'uuid' }, 'primary key "uuid"'],
    [
      'a sortable hidden column',
      { columns: { ...base().columns, secret: { type: 'string', hidden: true } }, sortable: ['secret'] },
      'sortable names "secret", which is hidden',
    ],
    [
      'a searchable hidden column',
      { columns: { ...base().columns, secret: { type: 'string', hidden: true } }, searchable: ['secret'] },
      'searchable names "secret", which is hidden',
    ],
    [
      'a filterable hidden column',
      { columns: { ...base().columns, secret: { type: 'string', hidden: true } }, filterable: ['secret'] },
      'filterable names "secret", which is hidden',
    ],
    [
      'a filterable json column',
      { columns: { ...base().columns, doc: { type: 'json' } }, filterable: ['doc'] },
      'json',
    ],
    ['an unknown verb', { requiredAuth: ['GET' as never] }, 'requiredAuth has "GET"'],
    ['a bad maxLimit', { maxLimit: 0 }, 'maxLimit'],
    [
      'a column that is not an identifier',
      { columns: { id: { type: 'integer' }, 'x; drop': { type: 'string' } } },
      'identifier',
    ],
    [
      'a belongsTo whose key is not a column',
      { relations: { owner: { type: 'belongsTo', table: 'users', foreignKey: 'user_id', columns: ['id'] } } },
      'foreign key "user_id"',
    ],
    [
      'a relation to a table without columns',
      { relations: { owner: { type: 'belongsTo', table: 'users', foreignKey: 'owner_id' } } },
      'must list its columns',
    ],
    [
      'an unknown formClass verb',
      { formClass: { delete: Type.Object({}) } as never },
      'formClass has "delete"',
    ],
  ])('refuses %s with one clear line', (_what, change, expected) => {
    expect(configError(() => defineResource({ ...base(), ...change }))).toContain(expected);
  });

  it('refuses cross-resource mistakes when the API is built', () => {
    const other: ResourceConfig = {
      ...base(),
      relations: { parts: { type: 'hasMany', resource: 'parts', foreignKey: 'thing_id' } },
    };
    expect(configError(() => createApi({ apiName: 'x', resources: [other] }))).toContain(
      'unknown resource "parts"',
    );
    expect(configError(() => createApi({ apiName: 'x', resources: [base(), base()] }))).toContain(
      'two resources',
    );
    const parts: ResourceConfig = { name: 'parts', columns: { id: { type: 'integer' } } };
    expect(configError(() => createApi({ apiName: 'x', resources: [other, parts] }))).toContain(
      '"thing_id" is not a column of "parts"',
    );
    const api = createApi({ apiName: 'x', resources: [base()] }).publish({ version: 'v1' });
    expect(configError(() => api.publish({ version: 'v1' }))).toContain('published twice');
    expect(configError(() => createApi({ apiName: 'x', apiBaseUrl: 'api', resources: [] }))).toContain(
      'apiBaseUrl',
    );
  });

  it('refuses a validator that lets clients set the primary key or a read-only column', () => {
    const resource = {
      ...base(),
      formClass: { post: Type.Object({ id: Type.Integer(), name: Type.String() }) },
    };
    const api = createApi({ apiName: 'x', resources: [resource] }).publish({ version: 'v1' });
    expect(configError(() => compileApi(api, 'sqlite'))).toContain('formClass.post accepts "id"');
  });

  it('publish() chains, with default docs routes', () => {
    const api = createApi({ apiName: 'Demo', resources: [base()] })
      .publish({ version: 'v1' })
      .publish({ version: 'v2', docs: { route: 'openapi.json', uiRoute: 'explorer' } });
    expect(api.apiBaseUrl).toBe('/api');
    expect(api.publications).toEqual([
      { version: 'v1', docs: { route: 'docs', uiRoute: 'docs/ui' } },
      { version: 'v2', docs: { route: 'openapi.json', uiRoute: 'explorer' } },
    ]);
    expect(createApi({ apiName: 'x', apiBaseUrl: '/rest/', resources: [] }).apiBaseUrl).toBe('/rest');
  });
});
