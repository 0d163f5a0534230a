import { Type } from '@sinclair/typebox';
import type { FieldReader } from '../../http/fields.ts';
import type { Limits } from '../../config/types.ts';
import { isCommonPassword } from '../core/passwords.ts';

/**
 * The password rules of registration, reset and set-password: length limits, not a common
 * password, and `password_confirm` equal to `password`. Returns the password when it passes.
 */
export function readNewPassword(fields: FieldReader, limits: Limits): string | undefined {
  const password = fields.string('password', {
    required: true,
    raw: true,
    min: limits.passwordMinLength,
    max: limits.passwordMaxLength,
  });
  const confirm = fields.string('password_confirm', {
    required: true,
    raw: true,
    label: 'Password confirmation',
  });
  // The mismatch is reported even when the password has its own problem: every error at once.
  if (password !== undefined && confirm !== undefined && confirm !== password)
    fields.fail('password_confirm', 'Password confirmation does not match.');
  if (password === undefined || fields.errors.password) return undefined;
  if (isCommonPassword(password)) {
    fields.fail('password', 'This password is too common. Please choose another one.');
    return undefined;
  }
  if (fields.errors.password_confirm) return undefined;
  return confirm === undefined ? undefined : password;
}

/**
 * The same rules for a declared body (`password`, `password_confirm`), as per-field messages:
 * an endpoint's `refine`, so they are reported together with the schema's own problems.
 */
export function newPasswordProblems(
  body: { password?: unknown; password_confirm?: unknown },
  limits: Pick<Limits, 'passwordMinLength' | 'passwordMaxLength'>,
): Record<string, string> {
  const errors: Record<string, string> = {};
  const { password, password_confirm: confirm } = body;
  if (typeof password === 'string') {
    const length = [...password].length;
    if (length < limits.passwordMinLength)
      errors.password = `Password must be at least ${limits.passwordMinLength} characters.`;
    else if (length > limits.passwordMaxLength)
      errors.password = `Password must be at most ${limits.passwordMaxLength} characters.`;
    else if (isCommonPassword(password))
      errors.password = 'This password is too common. Please choose another one.';
  }
  // The mismatch is reported even when the password has its own problem: every error at once.
  if (typeof password === 'string' && typeof confirm === 'string' && confirm !== password)
    errors.password_confirm = 'Password confirmation does not match.';
  return errors;
}

/** Schema of the two new-password fields (their length limits are settings: `newPasswordProblems`). */
export const NEW_PASSWORD_FIELDS = {
  password: Type.String({
    'x-raw': true,
    description: 'Length limits: PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH',
  }),
  password_confirm: Type.String({ 'x-raw': true, title: 'Password confirmation' }),
};
