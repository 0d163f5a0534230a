// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { inputReader } from '../../../src/auth/core/endpoint-input.ts';
import { ValidationError } from '../../../src/core/errors.ts';

function problems(read: () => unknown): Record<string, string> {
  try {
    read();
  } catch (error) {
    if (error instanceof ValidationError)
      return Object.fromEntries(
        Object.entries(error.options.errors ?? {}).map(([f, text]) => [f, String(text)]),
      );
    throw error;
  }
  throw new Error('no ValidationError');
}

describe('endpoint input: fields beyond the declared ones', () => {
  it('drops them by default', () => {
    const reader = inputReader(Type.Object({ name: Type.Optional(Type.String()) }));
    expect(reader.read({ name: ' a ', other: 'x' })).toEqual({ name: 'a' });
  });

  it('passes them on, decoded by `additionalProperties` (raw text kept, empty text absent, U+0000 refused)', () => {
    const reader = inputReader(
      Type.Object(
        { code: Type.Optional(Type.String()) },
        { additionalProperties: Type.Unknown({ 'x-raw': true }) },
      ),
    );
    expect(reader.read({ code: ' 123456 ', pin: ' 12 ', empty: '', shape: { a: 1 } })).toEqual({
      code: '123456',
      pin: ' 12 ',
      shape: { a: 1 },
    });
    expect(problems(() => reader.read({ pin: 'a\u0000b' }))).toEqual({
      pin: 'Pin contains an invalid character.',
    });
  });

  it('checks them against `additionalProperties`', () => {
    const reader = inputReader(Type.Object({}, { additionalProperties: Type.String({ maxLength: 3 }) }));
    expect(reader.read({ a: 'abc' })).toEqual({ a: 'abc' });
    expect(problems(() => reader.read({ long_one: 'abcd' }))).toEqual({
      long_one: 'Long one must be at most 3 characters.',
    });
  });
});
