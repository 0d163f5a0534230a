import type { FastifyRequest } from 'fastify';
import { BadRequestError, HttpError } from '../../core/errors.ts';
import { payloadPath } from '../resource/validation.ts';

const NUL = '\u0000';

/** The payload path of the first string holding U+0000, or null. */
export function findNul(value: unknown, pointer = ''): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? pointer : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${pointer}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNul(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * preValidation hook of the resource API: U+0000 has no place in text, and PostgreSQL refuses it
 * outright (a driver error, not a client error). Refused up front: 400 in the query, 422 in a payload.
 */
export function refuseNulCharacters(request: FastifyRequest): void {
  const inQuery = findNul(request.query);
  if (inQuery !== null) {
    throw new BadRequestError('A query parameter contains an invalid character.', {
      invalidParams: [
        { name: payloadPath('', inQuery) || '(query)', reason: 'contains an invalid character' },
      ],
    });
  }
  const inBody = findNul(request.body);
  if (inBody !== null) {
    throw new HttpError(422, 'Validation failed.', {
      invalidParams: [{ name: payloadPath('', inBody) || '(body)', reason: 'contains an invalid character' }],
    });
  }
}
