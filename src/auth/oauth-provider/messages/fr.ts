import type { Translation } from '../../../core/i18n/types.ts';
import type { OAuthProviderEnglish } from './en.ts';

export const fr = {
  'apps.title': 'Applications connectées',
  'apps.intro':
    'Les applications que vous avez autorisées à vous connecter avec ce compte ou à agir pour vous. Retirer l’accès vous déconnecte de l’application et met fin à chaque jeton d’accès qu’elle détient pour vous.',
  'apps.none': 'Aucune application n’a accès à votre compte.',
  'apps.notVerified': 'Non vérifiée',
  'apps.returnsTo': 'Vous renvoie vers',
  'apps.can': 'Peut',
  'apps.since': 'Depuis',
  'apps.withdraw': 'Retirer l’accès',
  'apps.withdrawQuestion': ({ name }) => `Retirer à ${name} l’accès à votre compte ?`,
  'apps.back': 'Retour à votre compte',
  'apps.withdrawn': ({ name }) => `${name} n’a plus accès à votre compte.`,
  'apps.notFound': 'Aucune application de ce nom n’a accès à votre compte.',
} satisfies Translation<OAuthProviderEnglish>;
