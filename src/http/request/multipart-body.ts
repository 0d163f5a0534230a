import type { FastifyRequest } from 'fastify';
import { BadRequestError } from '../../core/errors.ts';

/** What the client is told of a multipart body that cannot be read. */
export const MALFORMED_MULTIPART = 'The request body is not valid multipart/form-data.';

interface FieldPart {
  value?: unknown;
}

/**
 * preValidation hook: a multipart/form-data body becomes `request.body` as `{ name: value }`
 * (a repeated name: an array), as @fastify/multipart's `attachFieldsToBody: 'keyValues'` did, but
 * a body the parser cannot read (no boundary, data cut short, a broken part header) is the
 * client's error: 400. Busboy reports those as plain Errors without a status, which answered 500.
 * The plugin's own client errors (limits 413, prototype names 400, JSON parts 406) keep theirs.
 * Files are refused by the plugin's limits (`files: 0`), so every part here is a field.
 */
export function readMultipartBody(request: FastifyRequest): Promise<void> | undefined {
  // Only a multipart request waits for anything.
  return request.isMultipart() ? readFields(request) : undefined;
}

async function readFields(request: FastifyRequest): Promise<void> {
  let fields: Record<string, FieldPart | FieldPart[] | undefined> = {};
  try {
    for await (const part of request.parts()) fields = part.fields as typeof fields;
  } catch (error) {
    const status = (error as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) throw error;
    throw new BadRequestError(MALFORMED_MULTIPART);
  }
  const body: Record<string, unknown> = {};
  for (const name of Object.keys(fields)) {
    const field = fields[name];
    if (Array.isArray(field)) {
      const values = field.filter((item) => item.value !== undefined).map((item) => item.value);
      if (values.length > 0) body[name] = values;
    } else if (field?.value !== undefined) {
      body[name] = field.value;
    }
  }
  request.body = body;
}
