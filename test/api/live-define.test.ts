// Dialect-independent: checks of the `live` declaration and options at start-up, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { createApi, defineResource } from '../../src/index.ts';

const columns = { id: { type: 'integer' as const, readOnly: true }, title: { type: 'string' as const } };

describe('live: declaration checks', () => {
  it('live must be a boolean, and needs the list read', () => {
    expect(() => defineResource({ name: 'notes', columns, live: 'yes' as unknown as boolean })).toThrow(
      /live must be true or false/,
    );
    expect(() => defineResource({ name: 'notes', columns, live: true, exposedMethods: ['post'] })).toThrow(
      /live needs the list read/,
    );
    expect(defineResource({ name: 'notes', columns, live: true }).live).toBe(true);
  });

  it('live options are positive integers with known names', () => {
    const resources = [defineResource({ name: 'notes', columns, live: true })];
    expect(() => createApi({ apiName: 'x', resources, live: { maxStreamsPerUser: 0 } })).toThrow(
      /live.maxStreamsPerUser must be a positive integer/,
    );
    expect(() =>
      createApi({
        apiName: 'x',
        resources,
        live: { retention: 5 } as unknown as { retentionSeconds: number },
      }),
    ).toThrow(/live.retention is not an option/);
    expect(createApi({ apiName: 'x', resources, live: { heartbeatSeconds: 10 } }).live).toEqual({
      heartbeatSeconds: 10,
    });
  });
});
