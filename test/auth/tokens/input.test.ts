// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { parseIsoTimestamp, parseTokenId } from '../../../src/auth/tokens/input.ts';

describe('expires_at parsing', () => {
  it('accepts ISO 8601 forms and normalises them to UTC', () => {
    const cases: [string, string][] = [
      ['2030-01-31T12:00:00Z', '2030-01-31T12:00:00.000Z'],
      ['2030-01-31T12:00:00.5Z', '2030-01-31T12:00:00.500Z'],
      ['2030-01-31T12:00:00.123456Z', '2030-01-31T12:00:00.123Z'],
      ['2030-01-31T12:00', '2030-01-31T12:00:00.000Z'],
      ['2030-01-31', '2030-01-31T00:00:00.000Z'],
      ['2030-01-31T14:00:00+02:00', '2030-01-31T12:00:00.000Z'],
      ['2030-01-31T10:30:00-0130', '2030-01-31T12:00:00.000Z'],
      ['2028-02-29T00:00:00z', '2028-02-29T00:00:00.000Z'],
    ];
    for (const [input, expected] of cases)
      expect(parseIsoTimestamp(input)?.toISOString(), input).toBe(expected);
  });

  it('refuses what is not a real ISO 8601 timestamp', () => {
    for (const input of [
      '',
      'tomorrow',
      '1893456000',
      '2030-02-30T00:00:00Z',
      '2029-02-29',
      '2030-13-01',
      '2030-01-31T24:00:00Z',
      '2030-01-31T12:60:00Z',
      '2030-01-31T12:00:61Z',
      '2030-01-31T12:00:00+25:00',
      '+012030-01-31T12:00:00Z',
      '0999-01-01',
      'Thu, 31 Jan 2030 12:00:00 GMT',
      '2030-1-31',
    ]) {
      expect(parseIsoTimestamp(input), input).toBeNull();
    }
  });
});

describe('token path ids', () => {
  it('accepts positive integers that fit the id column only', () => {
    expect(parseTokenId('1')).toBe(1);
    expect(parseTokenId('2147483647')).toBe(2147483647);
    for (const value of [
      '0',
      '-1',
      '01',
      '1.0',
      '1e3',
      'abc',
      '',
      '2147483648',
      '99999999999',
      undefined,
      5,
    ]) {
      expect(parseTokenId(value), String(value)).toBeNull();
    }
  });
});
