import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, defineResource } from '../../src/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDialect } from '../support/databases.ts';
import { TYPED_COLUMNS, specimenMigrations, specimens } from './fixtures/specimens.ts';

/*
 * The resource reads answer through a serializer compiled from each resource's schema; a hook
 * that puts a value of another type in a column's place, or adds fields, must still be answered
 * exactly as JSON.stringify writes the record (src/api/http/serializers.ts).
 */
const retyping = defineResource({
  ...specimens,
  relations: {},
  allowedRelations: [],
  hooks: {
    afterQuery(records) {
      for (const record of records) {
        if (record.str === 'retyped') {
          record.str = { retyped: true };
          record.txt = 42;
        }
        record.added = record.i;
      }
    },
  },
});
const api = createApi({ apiName: 'Serializers', resources: [retyping] }).publish({ version: 'v1' });

const row = (str: string, i: number) => ({
  i,
  big: '9007199254740993',
  num: 1.5,
  dec: '12.5',
  flag: true,
  str,
  txt: 'text',
  day: '2026-01-31',
  at: '2026-01-31T12:00:00.000Z',
  doc: { a: [1, 'b'] },
  note: null,
});

describe(`compiled read serializers on ${testDialect()}`, () => {
  let t: TestApp;
  const ids: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({ api, migrations: specimenMigrations });
    for (const [str, i] of [
      ['plain', 7],
      ['retyped', 8],
    ] as const) {
      const created = await t.client().post('/api/v1/specimens', row(str, i));
      expect(created.status, created.text).toBe(201);
      ids.push(String(created.body.data.id));
    }
  });
  afterAll(async () => t?.close());

  it('writes a record of declared types as JSON.stringify does, columns in order, added fields after', async () => {
    const response = await t.client().get(`/api/v1/specimens/${ids[0]}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const data = JSON.parse(response.text).data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['id', ...Object.keys(TYPED_COLUMNS), 'added']);
    expect(response.text).toBe(
      JSON.stringify({ status: 'success', data: { id: data.id, ...row('plain', 7), added: 7 } }),
    );
  });

  it('sends a value a hook retyped as it is, not coerced to the column type', async () => {
    const response = await t.client().get(`/api/v1/specimens/${ids[1]}`);
    expect(response.status).toBe(200);
    const data = JSON.parse(response.text).data as Record<string, unknown>;
    expect(data.str).toEqual({ retyped: true });
    expect(data.txt).toBe(42);
    expect(response.text).toBe(
      JSON.stringify({
        status: 'success',
        data: { id: data.id, ...row('retyped', 8), str: { retyped: true }, txt: 42, added: 8 },
      }),
    );
  });

  it('lists, sparse or whole, with and without a retyped record, as JSON.stringify writes them', async () => {
    const whole = await t.client().get('/api/v1/specimens?sort=i');
    expect(whole.status).toBe(200);
    expect(whole.text).toBe(JSON.stringify(JSON.parse(whole.text)));
    expect(JSON.parse(whole.text).data.map((d: { str: unknown }) => d.str)).toEqual([
      'plain',
      { retyped: true },
    ]);
    const one = await t.client().get('/api/v1/specimens?sort=i&i=7');
    expect(one.status).toBe(200);
    expect(JSON.parse(one.text).data[0]).toEqual({
      id: JSON.parse(one.text).data[0].id,
      ...row('plain', 7),
      added: 7,
    });
    const sparse = await t.client().get('/api/v1/specimens?sort=i&fields=str,i');
    expect(sparse.status).toBe(200);
    expect(sparse.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(JSON.parse(sparse.text).data[0])).toEqual(['id', 'i', 'str', 'added']);
  });
});
