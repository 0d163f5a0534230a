import { Type } from '@sinclair/typebox';
import type { Limits } from '../../config/types.ts';
import { isCommonPassword } from './passwords.ts';
import type { Text } from '../../core/i18n/catalog.ts';
import { authMessages } from './messages/index.ts';

/**
 * The password rules of registration, reset and set-password (`password`, `password_confirm`):
 * length limits from the settings, not a common password, the confirmation equal to the password.
 * An endpoint's `refine`, so they are reported together with the schema's own problems.
 */
export function newPasswordProblems(
  body: { password?: unknown; password_confirm?: unknown },
  limits: Pick<Limits, 'passwordMinLength' | 'passwordMaxLength'>,
): Record<string, Text> {
  const errors: Record<string, Text> = {};
  const { password, password_confirm: confirm } = body;
  if (typeof password === 'string') {
    const length = [...password].length;
    if (length < limits.passwordMinLength)
      errors.password = authMessages.text('password.tooShort', { min: limits.passwordMinLength });
    else if (length > limits.passwordMaxLength)
      errors.password = authMessages.text('password.tooLong', { max: limits.passwordMaxLength });
    else if (isCommonPassword(password)) errors.password = authMessages.text('password.common');
  }
  // The mismatch is reported even when the password has its own problem: every error at once.
  if (typeof password === 'string' && typeof confirm === 'string' && confirm !== password)
    errors.password_confirm = authMessages.text('password.mismatch');
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
