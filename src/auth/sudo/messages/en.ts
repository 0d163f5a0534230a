import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The sudo plugin's texts in English: the typed source of its other languages. */
export const en = {
  'page.title': 'Confirm it is you',
  'page.activeTitle': 'Sudo mode is on',
  'page.intro': ({ minutes }: { minutes: number }, f) =>
    f.plural(minutes, {
      one: 'Confirm it is you with one of these. You will not be asked again for # minute.',
      other: 'Confirm it is you with one of these. You will not be asked again for # minutes.',
    }),
  'page.introFor': ({ purpose, minutes }: { purpose: string; minutes: number }, f) =>
    f.plural(minutes, {
      one: `To ${purpose}, confirm it is you with one of these. You will not be asked again for # minute.`,
      other: `To ${purpose}, confirm it is you with one of these. You will not be asked again for # minutes.`,
    }),
  'page.activeUntil': ({ until }: { until: string }) =>
    `Sensitive changes are allowed until ${until}, without asking again.`,
  'page.continue': 'Continue',
  'page.continueTo': ({ purpose }: { purpose: string }) => `Continue to ${purpose}`,
  'page.leave': 'Leave sudo mode',
  'page.signInAgain': 'Sign in again to continue.',
  'page.confirm': 'Confirm',
  'page.password': 'Password',
  'page.totp': 'Authenticator app',
  'page.totpCode': 'Code from the app',
  'page.passkey': 'Passkey',
  'page.usePasskey': 'Use a passkey',
  'page.recoveryCode': 'Recovery code',

  // What asked for the confirmation, as the infinitive clause of "To …" and "Continue to …".
  'purpose.tokens': 'create an access token',
  'purpose.twoFactor': 'change your two-factor settings',
  'purpose.email': 'change your email address',
  'purpose.deleteAccount': 'delete your account',
  'purpose.password': 'change your password',

  'answer.notAvailable': 'This factor is not available for your account.',
  'answer.notAccepted': 'That proof was not accepted. Please try again.',
  'answer.confirmed': 'Identity confirmed.',
  'answer.left': 'You left sudo mode.',
  // What the passkey script says on this page (data attributes of its status line).
  'passkey.waiting': 'Waiting for your passkey…',
  'passkey.notUsed': 'The passkey was not used.',
  'passkey.unavailable': 'No passkey is available.',
  'passkey.failed': 'Something went wrong.',
} as const satisfies EnglishCatalog;

export type SudoEnglish = typeof en;
