import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { startApiApp } from '../support/api-app.ts';
import type { TestClient } from '../support/client.ts';
import { testDialect } from '../support/databases.ts';
import { specimenApi, specimenMigrations } from './fixtures/specimens.ts';

const base = {
  i: 0,
  big: '0',
  num: 0,
  dec: '0',
  flag: false,
  str: '',
  txt: '',
  day: '2026-01-01',
  at: '2026-01-01T00:00:00.000Z',
  doc: null,
  note: null,
};

const rows = [
  {
    ...base,
    str: 'Élan vital',
    i: 1,
    big: '9007199254740993',
    num: 1.5,
    dec: '10.25',
    flag: true,
    day: '2026-03-01',
    note: 'a',
  },
  {
    ...base,
    str: 'elan',
    i: 2,
    big: '-5',
    num: -2,
    dec: '-1',
    day: '2025-12-31',
    at: '2026-06-01T10:00:00.000Z',
  },
  { ...base, str: '100% pure', i: 3, big: '42', num: 1e10, dec: '10.3', flag: true, note: 'b' },
  { ...base, str: 'snake_case', i: 4, big: '7', num: 0.25, dec: '2', at: '2025-01-01T00:00:00.000Z' },
];

describe(`list filters on ${testDialect()}`, () => {
  let t: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    t = await startApiApp(specimenApi, specimenMigrations);
    client = t.client();
    const created = await client.post('/api/v1/specimens', rows);
    expect(created.status).toBe(201);
  });
  afterAll(async () => t?.close());

  async function matches(query: string): Promise<number[]> {
    const response = await client.get(`/api/v1/specimens?${query}`);
    expect(response.status, `${query}: ${response.text}`).toBe(200);
    return (response.body.data as { i: number }[]).map((row) => row.i).sort();
  }

  async function refused(query: string, name: string): Promise<string> {
    const response = await client.get(`/api/v1/specimens?${query}`);
    expect(response.status, query).toBe(400);
    expect(response.body.invalid_params, query).toEqual([{ name, reason: expect.any(String) }]);
    return response.body.invalid_params[0].reason as string;
  }

  const q = (text: string) => encodeURIComponent(text);

  it('compares every operator in the bracket form', async () => {
    expect(await matches('filter[i][eq]=2')).toEqual([2]);
    expect(await matches('filter[i][ne]=2')).toEqual([1, 3, 4]);
    expect(await matches('filter[i][gt]=2')).toEqual([3, 4]);
    expect(await matches('filter[i][gte]=2&filter[i][lt]=4')).toEqual([2, 3]);
    expect(await matches('filter[i][lte]=1')).toEqual([1]);
    expect(await matches('filter[i][in]=1,3,9')).toEqual([1, 3]);
    expect(await matches('filter[i][nin]=1,3')).toEqual([2, 4]);
    expect(await matches(`filter[str][contains]=${q('ÉLAN')}`)).toEqual([1]);
    expect(await matches(`filter[str][contains]=${q('elan')}`)).toEqual([2]); // accents count
    expect(await matches(`filter[str][contains]=${q('100%')}`)).toEqual([3]);
    expect(await matches(`filter[str][contains]=${q('_')}`)).toEqual([4]);
    expect(await matches('filter[str][starts]=el')).toEqual([2]);
    expect(await matches('filter[note][null]=true')).toEqual([2, 4]);
    expect(await matches('filter[note][null]=false')).toEqual([1, 3]);
  });

  it('compares each type by its JSON form', async () => {
    expect(await matches('filter[big][eq]=9007199254740993')).toEqual([1]);
    expect(await matches('filter[big][lt]=0')).toEqual([2]);
    expect(await matches('filter[num][gt]=1')).toEqual([1, 3]);
    expect(await matches('filter[dec][eq]=10.250')).toEqual([1]);
    expect(await matches('flag=true')).toEqual([1, 3]);
    expect(await matches('filter[flag][eq]=false')).toEqual([2, 4]);
    expect(await matches('filter[day][lt]=2026-01-01')).toEqual([2]);
    expect(await matches('filter[day][gte]=2026-02-01')).toEqual([1]);
    expect(await matches(`filter[at][gt]=${q('2026-05-01T00:00:00Z')}`)).toEqual([2]);
    expect(await matches(`filter[at][lt]=${q('2025-06-01T02:00:00+02:00')}`)).toEqual([4]);
  });

  it('nests or/and groups in the bracket form and the JSON form alike', async () => {
    expect(await matches('filter[or][0][i][eq]=1&filter[or][1][i][eq]=4')).toEqual([1, 4]);
    expect(
      await matches(
        'filter[flag][eq]=true&filter[or][0][i][eq]=1&filter[or][1][and][0][i][gt]=1&filter[or][1][and][1][note][null]=false',
      ),
    ).toEqual([1, 3]);
    const tree = { or: [{ i: { eq: 1 } }, { and: [{ i: { gt: 1 } }, { str: { contains: 'snake' } }] }] };
    expect(await matches(`filter=${q(JSON.stringify(tree))}`)).toEqual([1, 4]);
    expect(await matches(`filter=${q(JSON.stringify({ i: { in: [2, 3] } }))}`)).toEqual([2, 3]);
    // Filters, the JSON filter and equality parameters all hold together.
    expect(await matches(`flag=true&filter[i][gt]=1&filter=${q('{"note":{"null":false}}')}`)).toEqual([3]);
  });

  it('refuses unknown fields and operators, wrong types and deep groups with 400 naming them', async () => {
    expect(await refused('filter[txt][eq]=x', 'filter[txt]')).toContain('not a filterable field');
    expect(await refused('filter[i][like]=x', 'filter[i][like]')).toContain('operators:');
    expect(await refused('filter[flag][gt]=true', 'filter[flag][gt]')).toContain('operators:');
    expect(await refused('filter[i][contains]=1', 'filter[i][contains]')).toContain('operators:');
    expect(await refused('filter[i][null]=true', 'filter[i][null]')).toContain('operators:');
    await refused('filter[i][eq]=abc', 'filter[i][eq]');
    await refused('filter[big][eq]=1.5', 'filter[big][eq]');
    await refused('filter[day][eq]=2026-02-30', 'filter[day][eq]');
    await refused('filter[flag][eq]=yes', 'filter[flag][eq]');
    await refused('filter[note][null]=maybe', 'filter[note][null]');
    await refused('filter[i][in]=1,x', 'filter[i][in]');
    await refused('filter=nope', 'filter');
    await refused(`filter=${q('{"or":[]}')}`, 'filter[or]');
    const deep = { or: [{ and: [{ or: [{ and: [{ i: { eq: 1 } }] }] }] }] };
    expect(await refused(`filter=${q(JSON.stringify(deep))}`, 'filter[or][0][and][0][or][0][and]')).toContain(
      'deeper than 3',
    );
    const three = { or: [{ and: [{ or: [{ i: { eq: 1 } }] }] }] };
    expect(await matches(`filter=${q(JSON.stringify(three))}`)).toEqual([1]);
    await refused('filter[or][x][i][eq]=1', 'filter[or]');
    const many = Array.from({ length: 31 }, (_, n) => `filter[or][${n}][i][eq]=${n}`).join('&');
    expect(await refused(many, 'filter[or][30][i][eq]')).toContain('limit of 30');
  });
});
