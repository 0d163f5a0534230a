import type { EnglishCatalog } from '../../../core/i18n/types.ts';

/** The auth core's messages in English (input validation, password rules, sudo, security notices). */
export const en = {
  // Input validation (`errors.<field>`); `label` is the field's name as the schema titles it.
  'field.required': ({ label }: { label: string }) => `${label} is required.`,
  'field.minLength': ({ label, limit }: { label: string; limit: number }, f) =>
    f.plural(limit, {
      one: `${label} must be at least # character.`,
      other: `${label} must be at least # characters.`,
    }),
  'field.maxLength': ({ label, limit }: { label: string; limit: number }, f) =>
    f.plural(limit, {
      one: `${label} must be at most # character.`,
      other: `${label} must be at most # characters.`,
    }),
  'field.email': ({ label }: { label: string }) => `${label} must be a valid email address.`,
  'field.invalid': ({ label }: { label: string }) => `${label} is not valid.`,
  'field.text': ({ label }: { label: string }) => `${label} must be text.`,
  'field.boolean': ({ label }: { label: string }) => `${label} must be true or false.`,
  'field.number': ({ label }: { label: string }) => `${label} must be a number.`,
  'field.minimum': ({ label, limit }: { label: string; limit: number }) =>
    `${label} must be at least ${limit}.`,
  'field.maximum': ({ label, limit }: { label: string; limit: number }) =>
    `${label} must be at most ${limit}.`,
  'field.list': ({ label }: { label: string }) => `${label} must be a list.`,
  'field.minItems': ({ label, limit }: { label: string; limit: number }, f) =>
    `${label} must list at least ${f.number(limit)}.`,
  'field.maxItems': ({ label, limit }: { label: string; limit: number }, f) =>
    `${label} must list at most ${f.number(limit)}.`,
  'field.invalidCharacter': ({ label }: { label: string }) => `${label} contains an invalid character.`,

  // The new-password rules.
  'password.tooShort': ({ min }: { min: number }, f) =>
    f.plural(min, {
      one: 'Password must be at least # character.',
      other: 'Password must be at least # characters.',
    }),
  'password.tooLong': ({ max }: { max: number }, f) =>
    f.plural(max, {
      one: 'Password must be at most # character.',
      other: 'Password must be at most # characters.',
    }),
  'password.common': 'This password is too common. Please choose another one.',
  'password.mismatch': 'Password confirmation does not match.',

  // Sign-in, access and proofs.
  'signIn.first': 'Please sign in first.',
  'signIn.expired': 'This sign-in attempt has expired. Please sign in again.',
  'signIn.oneMoreStep': 'One more step is needed to finish signing in.',
  'signIn.disabled': 'This account is disabled.',
  'signIn.disabledByAdmin': 'This account has been disabled by an administrator.',
  'access.adminsOnly': 'Administrators only.',
  'access.notWhileImpersonating': 'Not available while acting as another user.',
  'token.invalid': 'Invalid or expired token.',
  'proof.required': 'Proof is required.',
  'proof.factorRequired': 'Factor is required.',

  // Sudo (confirm it is you).
  'sudo.required': 'Please confirm your identity to continue.',
  'sudo.wrongCredential': 'This credential cannot be used for this operation.',

  // Security notices: where the change came from, then what happened.
  'notice.where': ({ device, ip }: { device: string; ip: string | null }) =>
    ip ? ` from ${device} (${ip})` : ` from ${device}`,
  'notice.review':
    'If this was you, there is nothing to do. If it was not, change your password and review the sessions and security events in your account settings.',
  'notice.newDevice.subject': 'New sign-in to your account',
  'notice.newDevice.intro': ({ username, where }: { username: string; where: string }) =>
    `A new sign-in to your account ${username}${where}. This device has not been seen for this account recently.`,
  'notice.passwordChanged.subject': 'Your password was changed',
  'notice.passwordChanged.intro': ({ username, where }: { username: string; where: string }) =>
    `The password of your account ${username} was changed${where}.`,
  'notice.passwordReset.subject': 'Your password was reset',
  'notice.passwordReset.intro': ({ username, where }: { username: string; where: string }) =>
    `The password of your account ${username} was reset with an emailed link${where}. Every session was signed out.`,
  'notice.emailChange.subject': 'Your email address is being changed',
  'notice.emailChange.intro': ({
    username,
    where,
    newEmail,
  }: {
    username: string;
    where: string;
    newEmail: string;
  }) =>
    `Someone asked${where} to change the email address of your account ${username} to ${newEmail}. It changes only when the link sent to the new address is confirmed, signed in to this account.`,
  'notice.emailChange.anotherAddress': 'another address',
  'notice.factorAdded.subject': 'A two-factor method was added',
  'notice.factorAdded.intro': ({
    username,
    where,
    factor,
  }: {
    username: string;
    where: string;
    factor: string;
  }) => `${factor} was added to your account ${username}${where}.`,
  'notice.factorRemoved.subject': 'A two-factor method was removed',
  'notice.factorRemoved.intro': ({
    username,
    where,
    factor,
  }: {
    username: string;
    where: string;
    factor: string;
  }) => `${factor} was removed from your account ${username}${where}.`,
  'notice.factor.unnamed': 'A two-factor method',
  'notice.tokenCreated.subject': 'A personal access token was created',
  'notice.tokenCreated.intro': ({
    username,
    where,
    tokenName,
  }: {
    username: string;
    where: string;
    tokenName: string;
  }) => `A personal access token named "${tokenName}" was created for your account ${username}${where}.`,
  'notice.secondFactorLocked.subject': 'Two-factor sign-in is locked for now',
  'notice.secondFactorLocked.intro': ({ username, where }: { username: string; where: string }) =>
    `Too many wrong two-factor codes were entered for your account ${username}${where}. Code entry is paused for a while.`,
} as const satisfies EnglishCatalog;

export type AuthEnglish = typeof en;
