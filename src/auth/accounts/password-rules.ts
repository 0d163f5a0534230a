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
  if (password === undefined || fields.errors.password) return undefined;
  if (isCommonPassword(password)) {
    fields.fail('password', 'This password is too common. Please choose another one.');
    return undefined;
  }
  if (confirm !== undefined && confirm !== password) {
    fields.fail('password_confirm', 'Password confirmation does not match.');
    return undefined;
  }
  return confirm === undefined ? undefined : password;
}
