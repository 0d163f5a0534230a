import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, defineResource } from '../../src/index.ts';
import type { HookContext, ResourceQuery } from '../../src/api/resource/types.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDialect } from '../support/databases.ts';
import { specimenMigrations, specimens } from './fixtures/specimens.ts';

/*
 * `beforeQueryReads: 'caller'` says a resource's beforeQuery reads only who the caller is: the
 * engine then runs the hook and compiles an anonymous single read once. What each caller sees must
 * not change: anonymous callers see the hook's rows only, signed-in callers get their own query
 * (the hook runs for each of their reads), and a resource that does not say so runs its hook on
 * every read.
 */
const calls = { cached: 0, perRequest: 0 };

/** Anonymous callers see rows with i < 10; a signed-in caller every row. */
function visible(query: ResourceQuery, ctx: HookContext): ResourceQuery {
  return ctx.user ? query : query.where('specimens.i', '<', 10);
}

const base = { ...specimens, relations: {}, allowedRelations: [] };
const cached = defineResource({
  ...base,
  name: 'cached',
  table: 'specimens',
  beforeQueryReads: 'caller',
  hooks: {
    beforeQuery(query, ctx) {
      calls.cached++;
      return visible(query, ctx);
    },
  },
});
const perRequest = defineResource({
  ...base,
  name: 'per_request',
  table: 'specimens',
  hooks: {
    beforeQuery(query, ctx) {
      calls.perRequest++;
      // Reads the request: the engine may not keep its query.
      return ctx.request.headers['x-show-all'] === 'yes' ? query : visible(query, ctx);
    },
  },
});
const api = createApi({ apiName: 'Statements', resources: [cached, perRequest] }).publish({ version: 'v1' });

const row = (i: number) => ({
  i,
  big: '1',
  num: 1.5,
  dec: '1.5',
  flag: true,
  str: `row ${i}`,
  txt: 'text',
  day: '2026-01-31',
  at: '2026-01-31T12:00:00.000Z',
  doc: null,
  note: null,
});

describe(`an anonymous single read compiled once, on ${testDialect()}`, () => {
  let t: TestApp;
  let shown: string;
  let hidden: string;
  beforeAll(async () => {
    t = await startTestApp({ api, migrations: specimenMigrations });
    const writer = await t.signIn(await t.createUser({ username: 'writer' }));
    const ids: string[] = [];
    for (const i of [5, 50]) {
      const created = await writer.post('/api/v1/cached', row(i));
      expect(created.status, created.text).toBe(201);
      ids.push(String(created.body.data.id));
    }
    [shown, hidden] = ids as [string, string];
  });
  afterAll(async () => t?.close());

  it('anonymous reads run the hook once and still see only its rows', async () => {
    const before = calls.cached;
    for (let round = 0; round < 5; round++) {
      const seen = await t.client().get(`/api/v1/cached/${shown}`);
      expect(seen.status).toBe(200);
      expect(seen.body.data.i).toBe(5);
      expect((await t.client().get(`/api/v1/cached/${hidden}`)).status).toBe(404);
    }
    // Concurrent first reads may each compile it; after that, none does.
    expect(calls.cached - before).toBeLessThanOrEqual(1);
    // A list still runs the hook per request (its query varies with the request's parameters).
    const list = await t.client().get('/api/v1/cached');
    expect(list.body.data.map((record: { i: number }) => record.i)).toEqual([5]);
  });

  it('a signed-in caller gets its own query on every read', async () => {
    const reader = await t.signIn(await t.createUser({ username: 'reader' }));
    const before = calls.cached;
    for (let round = 0; round < 3; round++) {
      const seen = await reader.get(`/api/v1/cached/${hidden}`);
      expect(seen.status).toBe(200);
      expect(seen.body.data.i).toBe(50);
    }
    expect(calls.cached - before).toBe(3);
    // And the anonymous statement was not replaced by the signed-in one.
    expect((await t.client().get(`/api/v1/cached/${hidden}`)).status).toBe(404);
  });

  it('without the declaration the hook runs on every read, and may read the request', async () => {
    const before = calls.perRequest;
    expect((await t.client().get(`/api/v1/per_request/${hidden}`)).status).toBe(404);
    const all = await t.app.inject({
      method: 'GET',
      url: `/api/v1/per_request/${hidden}`,
      headers: { accept: 'application/json', 'x-show-all': 'yes' },
    });
    expect(all.statusCode).toBe(200);
    expect((await t.client().get(`/api/v1/per_request/${hidden}`)).status).toBe(404);
    expect(calls.perRequest - before).toBe(3);
  });

  it('concurrent anonymous reads agree with the hook', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.client().get(`/api/v1/cached/${i % 2 ? hidden : shown}`)),
    );
    answers.forEach((answer, i) => expect(answer.status).toBe(i % 2 ? 404 : 200));
  });
});
