import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The social sign-in plugin's texts in English: the typed source of its other languages. */
export const en = {
  'error.unknownProvider': 'Unknown sign-in provider.',
  'error.unreachable': 'The sign-in provider cannot be reached right now.',
  'error.refused': 'The provider did not sign you in.',
  'error.invalidAttempt': 'This sign-in attempt is invalid or has expired. Please start again.',
  'error.failed': 'Signing in with the provider failed. Please try again.',
  'answer.signedIn': ({ provider }: { provider: string }) => `You are signed in with ${provider}.`,
} as const satisfies EnglishCatalog;

export type SocialEnglish = typeof en;
