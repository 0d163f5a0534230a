import type { Translation } from '../../../plugin-api.ts';
import type { SudoEnglish } from './en.ts';

export const fr = {
  'page.title': 'Confirmez votre identité',
  'page.activeTitle': 'Le mode sudo est actif',
  'page.intro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Confirmez votre identité avec l’une de ces méthodes. Elle ne vous sera plus demandée pendant # minute.',
      other:
        'Confirmez votre identité avec l’une de ces méthodes. Elle ne vous sera plus demandée pendant # minutes.',
    }),
  'page.introFor': ({ purpose, minutes }, f) =>
    f.plural(minutes, {
      one: `Pour ${purpose}, confirmez votre identité avec l’une de ces méthodes. Elle ne vous sera plus demandée pendant # minute.`,
      other: `Pour ${purpose}, confirmez votre identité avec l’une de ces méthodes. Elle ne vous sera plus demandée pendant # minutes.`,
    }),
  'page.activeUntil': ({ until }) =>
    `Jusqu’au ${until}, vous pouvez effectuer des modifications sensibles sans nouvelle confirmation.`,
  'page.continue': 'Continuer',
  'page.continueTo': ({ purpose }) => `Continuer pour ${purpose}`,
  'page.leave': 'Quitter le mode sudo',
  'page.signInAgain': 'Reconnectez-vous pour continuer.',
  'page.confirm': 'Confirmer',
  'page.password': 'Mot de passe',
  'page.totp': 'Application d’authentification',
  'page.totpCode': 'Code de l’application',
  'page.passkey': 'Clé d’accès',
  'page.usePasskey': 'Utiliser une clé d’accès',
  'page.recoveryCode': 'Code de récupération',

  'purpose.tokens': 'créer un jeton d’accès',
  'purpose.twoFactor': 'modifier vos réglages de double authentification',
  'purpose.email': 'changer votre adresse e-mail',
  'purpose.deleteAccount': 'supprimer votre compte',
  'purpose.password': 'changer votre mot de passe',

  'answer.notAvailable': 'Cette méthode n’est pas disponible pour votre compte.',
  'answer.notAccepted': 'Cette preuve d’identité n’a pas été acceptée. Veuillez réessayer.',
  'answer.confirmed': 'Identité confirmée.',
  'answer.left': 'Vous avez quitté le mode sudo.',
  'passkey.waiting': 'En attente de votre clé d’accès…',
  'passkey.notUsed': 'La clé d’accès n’a pas été utilisée.',
  'passkey.unavailable': 'Aucune clé d’accès n’est disponible.',
  'passkey.failed': 'Une erreur s’est produite.',
} satisfies Translation<SudoEnglish>;
