// Dialect-independent: an in-memory structure and its counter, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { MAX_RECENT_ROWS, RECENT_ROW_MS, RecentRows } from '../../src/db/recent-rows.ts';
import { WriteGeneration } from '../../src/db/write-watch.ts';

const counter = () => new WriteGeneration(new Set(['users']));

describe('rows kept in memory (RecentRows)', () => {
  it('answers a kept row until the write counter moves, then nothing, and forgets every row', () => {
    const writes = counter();
    const rows = new RecentRows<string>(writes);
    rows.set('a', 'row a', rows.stamp());
    rows.set('b', 'row b', rows.stamp());
    expect(rows.get('a')).toBe('row a');
    writes.bump();
    expect(rows.get('a')).toBeUndefined();
    expect(rows.get('b')).toBeUndefined();
  });

  it('does not keep a row read while a write moved the counter', () => {
    const writes = counter();
    const rows = new RecentRows<string>(writes);
    const stamp = rows.stamp();
    writes.bump(); // a write began (or ended) while the row was being read
    rows.set('a', 'stale', stamp);
    expect(rows.get('a')).toBeUndefined();
  });

  it('keeps a row for at most a second (the ttl given)', async () => {
    expect(RECENT_ROW_MS).toBe(1000);
    const rows = new RecentRows<string>(counter(), 30);
    rows.set('a', 'row a', rows.stamp());
    expect(rows.get('a')).toBe('row a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rows.get('a')).toBeUndefined();
  });

  it(`keeps at most ${MAX_RECENT_ROWS} rows, the oldest going first`, () => {
    const rows = new RecentRows<number>(counter());
    for (let i = 0; i <= MAX_RECENT_ROWS; i++) rows.set(`k${i}`, i, rows.stamp());
    expect(rows.get('k0')).toBeUndefined();
    expect(rows.get('k1')).toBe(1);
    expect(rows.get(`k${MAX_RECENT_ROWS}`)).toBe(MAX_RECENT_ROWS);
  });
});
