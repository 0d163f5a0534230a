import { ValidationError } from '../../../core/errors.ts';

/** Which factor and proof a submission carries: `factor` + `proof`, or a bare `code` for totp. */
export function readProof(body: Record<string, unknown>): { factor: string; proof: unknown } {
  const factor = typeof body.factor === 'string' && body.factor !== '' ? body.factor : undefined;
  const proof = body.proof ?? body.code;
  const errors: Record<string, string> = {};
  if (proof === undefined || proof === null || proof === '') errors.proof = 'Proof is required.';
  if (factor === undefined && body.code === undefined && !errors.proof) errors.factor = 'Factor is required.';
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { factor: factor ?? 'totp', proof };
}
