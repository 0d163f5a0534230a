import Sqids, { defaultOptions } from 'sqids';
import { DECIMAL_DEFAULTS } from '../resource/column-types.ts';
import { MAX_OBFUSCATED_ID } from '../resource/sqids.ts';
import type { ColumnType } from '../resource/types.ts';
import type { OpenApiSchema } from './json-schema.ts';

/** The deployment settings obfuscated ids depend on (SQIDS_ALPHABET, SQIDS_MIN_LENGTH). */
export interface IdSettings {
  alphabet?: string;
  minLength?: number;
}

/** SQIDS_MIN_LENGTH's default (src/config/load.ts). */
const DEFAULT_MIN_LENGTH = 8;

/**
 * An obfuscated key as the client sees it: never an integer. Each id space
 * shuffles the same base alphabet, so its characters are known; so are the lengths: at least
 * SQIDS_MIN_LENGTH (and 2: a prefix and a digit), at most the length of the largest number the
 * engine decodes (MAX_OBFUSCATED_ID, the largest integer column value). Which strings of those are canonical ids depends on
 * the secret order of the alphabet, which a document cannot say without giving it away.
 */
export function sqidSchema(settings: IdSettings = {}): OpenApiSchema {
  const alphabet = settings.alphabet ?? defaultOptions.alphabet;
  const minLength = settings.minLength ?? DEFAULT_MIN_LENGTH;
  const longest = new Sqids({ alphabet, minLength }).encode([MAX_OBFUSCATED_ID]).length;
  const characters = characterClass(alphabet);
  const shortest = Math.max(minLength, 2);
  return {
    type: 'string',
    pattern: `^[${characters}]{${shortest === longest ? shortest : `${shortest},${longest}`}}$`,
    description: 'Obfuscated key (Sqids): the canonical encoding of one number.',
    examples: [new Sqids({ alphabet, minLength }).encode([1])],
  };
}

/** The characters of `alphabet` as the inside of a regular expression class: `0-9A-Za-z`. */
function characterClass(alphabet: string): string {
  const points = [...new Set([...alphabet].map((c) => c.codePointAt(0)!))].sort((a, b) => a - b);
  const one = (point: number) => {
    const c = String.fromCodePoint(point);
    return /[\\\]^[-]/.test(c) ? `\\${c}` : c;
  };
  let out = '';
  for (let i = 0; i < points.length;) {
    let j = i;
    while (j + 1 < points.length && points[j + 1] === points[j]! + 1) j++;
    out +=
      j - i >= 2
        ? `${one(points[i]!)}-${one(points[j]!)}`
        : points
            .slice(i, j + 1)
            .map(one)
            .join('');
    i = j + 1;
  }
  return out;
}

/** The JSON form of a column type, as src/api/resource/column-types.ts checks it. */
export function typeSchema(type: ColumnType | 'plain', precision?: number, scale?: number): OpenApiSchema {
  switch (type) {
    case 'integer':
      return { type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
    case 'bigint':
      return {
        type: 'string',
        pattern: '^-?(0|[1-9][0-9]{0,18})$',
        description: 'A 64-bit integer, as a string (JSON numbers are exact only up to 2^53).',
      };
    case 'number':
      return { type: 'number' };
    case 'decimal': {
      const p = precision ?? DECIMAL_DEFAULTS.precision;
      const s = scale ?? DECIMAL_DEFAULTS.scale;
      return {
        type: 'string',
        pattern: '^-?[0-9]+(\\.[0-9]+)?$',
        description: `An exact decimal as a string, at most ${p - s} digits before the point and ${s} after; sent without trailing zeros.`,
      };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'json':
      return { description: 'Any JSON value.' };
    default:
      return { type: 'string' };
  }
}
