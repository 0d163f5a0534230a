import { DECIMAL_DEFAULTS } from '../column-types.ts';
import type { ColumnType } from '../types.ts';
import type { OpenApiSchema } from './json-schema.ts';

/** An obfuscated key as the client sees it: never an integer (contract section 5). */
export const SQID: OpenApiSchema = {
  type: 'string',
  description: 'Obfuscated key (Sqids): the canonical encoding of one number.',
  examples: ['Uk4ae9Xb'],
};

/** The JSON form of a column type (contract section 11), as src/api/column-types.ts checks it. */
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
