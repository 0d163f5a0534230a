import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The sign-in-by-email plugin's texts in English: the typed source of its other languages. */
export const en = {
  'page.title': 'Sign in by email',
  'page.intro':
    'Enter your email address. If it belongs to an account, we will email you a link that signs you in.',
  'page.email': 'Email',
  'page.send': 'Email me a link',
  'page.passwordInstead': 'Sign in with a password instead',
  'sent.title': 'Check your email',
  'sent.intro': ({ minutes }: { minutes: number }, f) =>
    f.plural(minutes, {
      one: 'If that address belongs to an account, we sent it a sign-in link. Open it in this browser: it works once and for # minute.',
      other:
        'If that address belongs to an account, we sent it a sign-in link. Open it in this browser: it works once and for # minutes.',
    }),
  'sent.nothing': 'Nothing arrived? Check your spam folder.',
  'sent.another': 'Ask for another link',

  'answer.sent': 'If that address belongs to an account, a sign-in link is on its way.',
  'answer.signedIn': 'You are signed in.',
  'error.invalidLink': 'This sign-in link is invalid, was already used or has expired.',
  'mail.subject': 'Your sign-in link',
  'mail.intro': ({ username, minutes }: { username: string; minutes: number }, f) =>
    f.plural(minutes, {
      one: `Someone asked to sign in to the account ${username} by email. If it was you, follow the link within # minute. It works once.`,
      other: `Someone asked to sign in to the account ${username} by email. If it was you, follow the link within # minutes. It works once.`,
    }),
  'mail.link': 'Sign in',
  'mail.outro': 'If you did not ask for this, ignore this email: nobody can sign in without the link.',
} as const satisfies EnglishCatalog;

export type MagicLinkEnglish = typeof en;
