import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { startApiApp } from '../support/api-app.ts';
import type { TestClient } from '../support/client.ts';
import { testDialect } from '../support/databases.ts';
import { findForbiddenKey } from '../../src/core/request-keys.ts';
import { specimenApi, specimenMigrations } from './fixtures/specimens.ts';

/** One record of every type, edges included (contract section 11). */
const specimen = {
  i: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  big: fc
    .oneof(
      fc.constantFrom(
        0n,
        -1n,
        2n ** 53n - 1n,
        2n ** 53n,
        2n ** 53n + 1n,
        -(2n ** 53n) - 1n,
        2n ** 63n - 1n,
        -(2n ** 63n),
      ),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    )
    .map(String),
  num: fc.oneof(
    fc.constantFrom(0, -1, 0.1, 1e15, -2.5e-8, 2 ** 53 + 2),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
  ),
  dec: fc
    .tuple(
      fc.boolean(),
      fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }),
      fc.bigInt({ min: 0n, max: 10n ** 10n - 1n }),
    )
    .map(([negative, whole, fraction]) => {
      const text = `${whole}.${String(fraction).padStart(10, '0')}`;
      return negative ? `-${text}` : text;
    }),
  flag: fc.boolean(),
  str: fc.string({ unit: 'grapheme', maxLength: 40 }),
  txt: fc.string({ unit: 'grapheme', maxLength: 300 }),
  day: fc
    .date({
      min: new Date('1000-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString().slice(0, 10)),
  at: fc
    .date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
  // Any JSON document but one naming a prototype key anywhere, which every request refuses (400,
  // contract section 14; test/security/prototype-pollution.test.ts covers those).
  doc: fc
    .jsonValue({ maxDepth: 3 })
    .map((value) => JSON.parse(JSON.stringify(value)) as unknown)
    .filter((value) => findForbiddenKey(value, 'doc') === null),
  note: fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: null }),
};
const record = fc.record(specimen);

/** What the API must send back for a value sent: the same, decimals in their one spelling. */
function expected(input: Record<string, unknown>): Record<string, unknown> {
  // As the request carried it (JSON has no -0).
  const out = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
  if (typeof out.dec === 'string') {
    const negative = out.dec.startsWith('-');
    let [whole, fraction = ''] = out.dec.replace('-', '').split('.');
    whole = whole!.replace(/^0+(?=.)/, '');
    fraction = fraction.replace(/0+$/, '');
    const body = fraction ? `${whole}.${fraction}` : whole;
    out.dec = negative && body !== '0' ? `-${body}` : body;
  }
  return out;
}

const RUNS = 25;
/** Run counts, printed for the report. */
const runs: Record<string, number> = {};

describe(`column types round-trip on ${testDialect()}`, () => {
  let t: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    t = await startApiApp(specimenApi, specimenMigrations);
    client = t.client();
  });
  afterAll(async () => {
    console.log(`fast-check runs on ${testDialect()}: ${JSON.stringify(runs)}`);
    await t?.close();
  });

  const sample = {
    i: 0,
    big: '9007199254740993',
    num: -0.5,
    dec: '-12345678901234567890.0123456789',
    flag: true,
    str: 'Élan ✓ 𝄞',
    txt: '',
    day: '2024-02-29',
    at: '2026-01-31T12:00:00.000Z',
    doc: { nested: [1, 'two', null, { deep: true }], empty: '' },
    note: null,
  };

  it('answers 201 to a boolean (the 500 of the first release) and sends true/false back', async () => {
    const created = await client.post('/api/v1/specimens', sample);
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(Number), ...expected(sample) });
    const read = await client.get(`/api/v1/specimens/${created.body.data.id}`);
    expect(read.body.data.flag).toBe(true);
    expect(read.body.data.big).toBe('9007199254740993');
    const off = await client.patch(`/api/v1/specimens/${created.body.data.id}`, { flag: false });
    expect(off.status).toBe(200);
    expect(off.body.data.flag).toBe(false);
  });

  it('round-trips nested children of every type', async () => {
    const created = await client.post('/api/v1/specimens', {
      ...sample,
      parts: [sample, { ...sample, flag: false }],
    });
    expect(created.status).toBe(201);
    expect(created.body.data.parts).toHaveLength(2);
    expect(created.body.data.parts[1]).toMatchObject({ ...expected(sample), flag: false });
    const read = await client.get(`/api/v1/specimens/${created.body.data.id}?derive=parts`);
    expect(read.body.data.parts[0]).toEqual({
      id: expect.any(Number),
      specimen_id: created.body.data.id,
      ...expected(sample),
    });
  });

  it('refuses values that do not fit their column, naming the field', async () => {
    const cases: [string, unknown][] = [
      ['big', '9223372036854775808'],
      ['big', '12.5'],
      ['big', 12],
      ['i', 2 ** 31],
      ['dec', '1.00000000001'],
      ['dec', '123456789012345678901'],
      ['dec', '1e5'],
      ['day', '2026-02-30'],
      ['at', '2026-01-31 12:00'],
      ['flag', 1],
    ];
    for (const [field, value] of cases) {
      const response = await client.post('/api/v1/specimens', { ...sample, [field]: value });
      expect(response.status, `${field}=${JSON.stringify(value)}`).toBe(422);
      expect(response.body.invalid_params).toEqual([{ name: field, reason: expect.any(String) }]);
    }
    const nested = await client.post('/api/v1/specimens', {
      ...sample,
      parts: [sample, { ...sample, day: '2025-02-29' }],
    });
    expect(nested.status).toBe(422);
    expect(nested.body.invalid_params).toEqual([{ name: 'parts[1].day', reason: expect.any(String) }]);
  });

  it('property: POST, GET, PUT, PATCH, nested POST and nested PUT/PATCH give back what was sent', async () => {
    runs.roundTrip = 0;
    await fc.assert(
      fc.asyncProperty(
        record,
        record,
        fc.record(specimen, { requiredKeys: [] }),
        async (first, second, patch) => {
          runs.roundTrip! += 1;
          const created = await client.post('/api/v1/specimens', { ...first, parts: [second] });
          expect(created.status).toBe(201);
          const id = created.body.data.id as number;
          expect(created.body.data).toEqual({
            id,
            ...expected(first),
            parts: [{ id: expect.any(Number), specimen_id: id, ...expected(second) }],
          });
          const read = await client.get(`/api/v1/specimens/${id}?derive=parts`);
          expect(read.body.data).toEqual(created.body.data);
          const replaced = await client.put(`/api/v1/specimens/${id}`, second);
          expect(replaced.status).toBe(200);
          expect(replaced.body.data).toEqual({ id, ...expected(second) });
          const patched = await client.patch(`/api/v1/specimens/${id}`, patch);
          expect(patched.status).toBe(200);
          expect(patched.body.data).toEqual({ id, ...expected({ ...second, ...patch }) });
          const again = await client.get(`/api/v1/specimens/${id}`);
          expect(again.body.data).toEqual(patched.body.data);
          // Nested updates: the child changed through the parent's PATCH, a new one through PUT.
          const partId = created.body.data.parts[0].id as number;
          const nestedPatch = await client.patch(`/api/v1/specimens/${id}`, {
            parts: [{ id: partId, ...patch }],
          });
          expect(nestedPatch.status).toBe(200);
          expect(nestedPatch.body.data.parts).toEqual([
            { id: partId, specimen_id: id, ...expected({ ...second, ...patch }) },
          ]);
          const nestedPut = await client.put(`/api/v1/specimens/${id}`, { ...second, parts: [first] });
          expect(nestedPut.status).toBe(200);
          expect(nestedPut.body.data.parts).toEqual([
            { id: expect.any(Number), specimen_id: id, ...expected(first) },
          ]);
          const children = await client.get(`/api/v1/specimens/${id}?derive=parts`);
          expect(children.body.data.parts).toEqual(nestedPut.body.data.parts);
        },
      ),
      { numRuns: RUNS },
    );
    expect(runs.roundTrip).toBeGreaterThanOrEqual(RUNS);
  });
});
