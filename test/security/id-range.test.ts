/**
 * Ids outside the database's integer range are unknown ids on every dialect: 404 in a path, 422
 * in a body or a filter, never a 5xx (PostgreSQL and MySQL refuse such a value with an error, so
 * it is decided before any query). A table's `id` is 32-bit; a bigint column holds 64 bits.
 */
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApi,
  defaultPlugins,
  defineResource,
  organizations,
  type CitadelMigration,
} from '../../src/index.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';
import { startApiApp, type ApiApp } from '../support/api-app.ts';
import type { TestClient, TestResponse } from '../support/client.ts';
import { testDialect } from '../support/databases.ts';
import { elevate } from '../support/sudo.ts';
import { specimenMigrations, specimens, parts } from '../api/fixtures/specimens.ts';

/** A bigint primary key, and a belongsTo reference to an integer one. */
const labels = defineResource({
  name: 'labels',
  columns: { id: { type: 'bigint' }, specimen_id: { type: 'integer' }, name: { type: 'string' } },
  relations: { specimen: { type: 'belongsTo', resource: 'specimens', foreignKey: 'specimen_id' } },
  allowedRelations: ['specimen'],
  filterable: ['id', 'specimen_id'],
  formClass: {
    post: Type.Object({ specimen_id: Type.Optional(Type.Integer()), name: Type.String() }),
    put: Type.Object({ name: Type.String() }),
    patch: Type.Object({ name: Type.Optional(Type.String()) }),
  },
});

const api = createApi({
  apiName: 'Id ranges',
  resources: [{ ...specimens, filterable: [...(specimens.filterable ?? []), 'id'] }, parts, labels],
}).publish({ version: 'v1' });

const migrations: CitadelMigration[] = [
  ...specimenMigrations,
  {
    name: '0411_test_labels',
    async up(db) {
      await db.schema
        .createTable('labels')
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('specimen_id', 'integer', (c) => c.references('specimens.id'))
        .addColumn('name', 'varchar(100)', (c) => c.notNull())
        .execute();
    },
    async down(db) {
      await db.schema.dropTable('labels').execute();
    },
  },
];

const record = {
  i: 1,
  big: '1',
  num: 1,
  dec: '1',
  flag: true,
  str: 's',
  txt: 't',
  day: '2026-01-01',
  at: '2026-01-01T00:00:00Z',
  doc: {},
  note: null,
};

/** Beyond 32 bits; beyond 2^53; beyond 64 bits. */
const OUT_OF_INT = ['2147483648', '9999999999', '99999999999999999999'];
const OUT_OF_BIGINT = ['9223372036854775808', '-9223372036854775809', '99999999999999999999'];

describe(`ids outside the database's range are unknown ids on ${testDialect()}`, () => {
  let t: ApiApp;
  let session: TestClient;
  let specimenId: number;
  const errorLines: string[] = [];

  beforeAll(async () => {
    t = await startApiApp(api, migrations, {
      // Organizations: a token's organization_id is then looked up.
      plugins: [...defaultPlugins(), organizations()],
      logger: undefined,
      logLevel: 'error',
      logStream: { write: (line: string) => void errorLines.push(line) },
    });
    session = await t.signIn(await t.createUser());
    const created = await session.post('/api/v1/specimens', { ...record, parts: [record] });
    expect(created.status, created.text).toBe(201);
    specimenId = created.body.data.id;
    // A bigint key beyond 2^53: kept exactly (it travels as a string).
    await t.services.db
      .insertInto('labels' as never)
      .values({ id: '9007199254740993', specimen_id: specimenId, name: 'far' } as never)
      .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  const problem = (response: TestResponse, status: number, name?: string) => {
    expect(response.status, response.text).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    if (name) expect(response.body.invalid_params.map((p: { name: string }) => p.name)).toContain(name);
  };

  it('in a path: 404 for every verb (integer and bigint keys)', async () => {
    for (const id of [...OUT_OF_INT, '2147483647']) {
      problem(await session.get(`/api/v1/specimens/${id}`), 404);
      problem(await session.patch(`/api/v1/specimens/${id}`, { i: 2 }), 404);
      problem(await session.put(`/api/v1/specimens/${id}`, record), 404);
      problem(await session.delete(`/api/v1/specimens/${id}`), 404);
    }
    for (const id of [...OUT_OF_BIGINT, 'abc', '1.5', '9223372036854775807']) {
      problem(await session.get(`/api/v1/labels/${encodeURIComponent(id)}`), 404);
      problem(await session.patch(`/api/v1/labels/${encodeURIComponent(id)}`, { name: 'x' }), 404);
      problem(await session.put(`/api/v1/labels/${encodeURIComponent(id)}`, { name: 'x' }), 404);
      problem(await session.delete(`/api/v1/labels/${encodeURIComponent(id)}`), 404);
    }
    const far = await session.get('/api/v1/labels/9007199254740993');
    expect(far.status, far.text).toBe(200);
    expect(far.body.data.id).toBe('9007199254740993');
  });

  it('in a filter: 422 naming the parameter (bracket, shorthand, list, JSON; integer and bigint)', async () => {
    for (const id of OUT_OF_INT) {
      problem(await session.get(`/api/v1/specimens?filter[id][eq]=${id}`), 422, 'filter[id][eq]');
      problem(await session.get(`/api/v1/specimens?filter[id][in]=1,${id}`), 422, 'filter[id][in]');
      problem(await session.get(`/api/v1/specimens?id=${id}`), 422, 'id');
      problem(await session.get(`/api/v1/specimens?filter[i][gt]=${id}`), 422, 'filter[i][gt]');
      problem(
        await session.get(`/api/v1/specimens?filter=${encodeURIComponent(`{"id":{"eq":${id}}}`)}`),
        422,
      );
      problem(await session.get(`/api/v1/labels?specimen_id=${id}`), 422, 'specimen_id');
    }
    for (const id of OUT_OF_BIGINT) {
      problem(await session.get(`/api/v1/specimens?filter[big][eq]=${id}`), 422, 'filter[big][eq]');
      problem(await session.get(`/api/v1/labels?filter[id][eq]=${id}`), 422, 'filter[id][eq]');
    }
    // In range: an ordinary, empty answer; malformed stays 400.
    expect((await session.get('/api/v1/specimens?filter[id][eq]=2147483647')).body.data).toEqual([]);
    problem(await session.get('/api/v1/specimens?filter[id][eq]=abc'), 400);
  });

  it('in a body: 422 (foreign key, parent reference, nested child id), nothing written', async () => {
    const before = (await session.get('/api/v1/specimens')).body.pagination.total;
    for (const id of [2147483648, 99999999999, 1e20]) {
      problem(await session.post('/api/v1/parts', { ...record, specimen_id: id }), 422, 'specimen_id');
      problem(await session.post('/api/v1/labels', { name: 'x', specimen: { id } }), 422, 'specimen.id');
      problem(
        await session.patch(`/api/v1/specimens/${specimenId}`, { parts: [{ id, i: 3 }] }),
        422,
        'parts[0].id',
      );
      problem(
        await session.put(`/api/v1/specimens/${specimenId}`, { ...record, parts: [{ ...record, id }] }),
        422,
        'parts[0].id',
      );
      problem(await session.post('/api/v1/specimens', { ...record, i: id }), 422, 'i');
    }
    expect((await session.get('/api/v1/specimens')).body.pagination.total).toBe(before);
  });

  it('auth routes with an id: 404 in the path, 422 in a body', async () => {
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    await elevate(admin);
    for (const id of OUT_OF_INT) {
      for (const kind of ['json', 'form'] as const)
        expect((await admin.get(`/admin/users/${id}`, kind)).status).toBe(404);
      for (const action of ['disable', 'enable', 'sign-out', 'impersonate']) {
        const response = await admin.post(`/admin/users/${id}/${action}`, { reason: 'x' });
        expect(response.status, `${action}: ${response.text}`).toBe(404);
      }
      expect((await admin.delete(`/tokens/${id}`)).status).toBe(404);
      expect((await admin.post(`/tokens/revoke/${id}`, {})).status).toBe(404);
      expect((await admin.delete(`/sessions/${id}`)).status).toBe(404);
      const token = await admin.post('/tokens', { name: 'far', organization_id: Number(id) });
      expect(token.status, token.text).toBe(422);
      expect(Object.keys(token.body.errors)).toEqual(['organization_id']);
    }
  });

  it('nothing above reached the error log', () => {
    expect(errorLines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
  });
});
