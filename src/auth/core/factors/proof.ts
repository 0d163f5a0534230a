import { ValidationError } from '../../../core/errors.ts';
import { authMessages } from '../messages/index.ts';
import type { Text } from '../../../core/i18n/catalog.ts';

/** Which factor and proof a submission carries: `factor` + `proof`, or a bare `code` for totp. */
export function readProof(body: Record<string, unknown>): { factor: string; proof: unknown } {
  const factor = typeof body.factor === 'string' && body.factor !== '' ? body.factor : undefined;
  const proof = body.proof ?? body.code;
  const errors: Record<string, Text> = {};
  if (proof === undefined || proof === null || proof === '')
    errors.proof = authMessages.text('proof.required');
  if (factor === undefined && body.code === undefined && !errors.proof)
    errors.factor = authMessages.text('proof.factorRequired');
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { factor: factor ?? 'totp', proof };
}
