import type { Translation } from '../../../core/i18n/types.ts';
import type { OAuthProviderEnglish } from './en.ts';

export const de = {
  'apps.title': 'Verbundene Apps',
  'apps.intro':
    'Apps, die Sie mit diesem Konto anmelden oder in Ihrem Namen handeln lassen. Wenn Sie den Zugriff entziehen, werden Sie von der App abgemeldet und jedes Token, das sie für Sie hält, wird ungültig.',
  'apps.none': 'Keine App hat Zugriff auf Ihr Konto.',
  'apps.notVerified': 'Nicht verifiziert',
  'apps.returnsTo': 'Leitet zurück zu',
  'apps.can': 'Darf',
  'apps.since': 'Seit',
  'apps.withdraw': 'Zugriff entziehen',
  'apps.withdrawQuestion': ({ name }) => `${name} den Zugriff auf Ihr Konto entziehen?`,
  'apps.back': 'Zurück zu Ihrem Konto',
  'apps.withdrawn': ({ name }) => `${name} hat keinen Zugriff mehr auf Ihr Konto.`,
  'apps.notFound': 'Keine solche App hat Zugriff auf Ihr Konto.',
} satisfies Translation<OAuthProviderEnglish>;
