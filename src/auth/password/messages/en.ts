import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The password plugin's texts in English: the typed source of its other languages. */
export const en = {
  'page.changeTitle': 'Change your password',
  'page.setTitle': 'Set a password',
  'page.changeIntro':
    'Changing your password signs you out everywhere else. You may be asked to confirm your identity first.',
  'page.setIntro':
    'You signed up with a sign-in provider. Set a password to also sign in with your email or username.',
  'page.newPassword': 'New password',
  'page.confirmPassword': 'Confirm new password',
  'page.change': 'Change password',
  'page.set': 'Set password',
  'answer.changed': 'Your password was changed.',
  'answer.set': 'Your password was set. You can now sign in with it.',
} as const satisfies EnglishCatalog;

export type PasswordEnglish = typeof en;
