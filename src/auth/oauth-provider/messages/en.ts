import type { EnglishCatalog } from '../../../core/i18n/types.ts';

/** The OAuth provider's texts in English: the typed source of its other languages. */
export const en = {
  'apps.title': 'Connected apps',
  'apps.intro':
    'Apps you let sign you in with this account or act for you. Withdrawing access signs you out of the app and ends every token it holds for you.',
  'apps.none': 'No app has access to your account.',
  'apps.notVerified': 'Not verified',
  'apps.returnsTo': 'Returns you to',
  'apps.can': 'Can',
  'apps.since': 'Since',
  'apps.withdraw': 'Withdraw access',
  'apps.withdrawQuestion': ({ name }: { name: string }) => `Withdraw ${name}’s access to your account?`,
  'apps.back': 'Back to your account',
  'apps.withdrawn': ({ name }: { name: string }) => `${name} no longer has access to your account.`,
  'apps.notFound': 'No such app has access to your account.',
} as const satisfies EnglishCatalog;

export type OAuthProviderEnglish = typeof en;
