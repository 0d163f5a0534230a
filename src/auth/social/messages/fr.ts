import type { Translation } from '../../../plugin-api.ts';
import type { SocialEnglish } from './en.ts';

export const fr = {
  'error.unknownProvider': 'Service de connexion inconnu.',
  'error.unreachable': 'Le service de connexion est injoignable pour le moment.',
  'error.refused': 'Le service de connexion ne vous a pas connecté.',
  'error.invalidAttempt': 'Cette tentative de connexion n’est pas valide ou a expiré. Veuillez recommencer.',
  'error.failed': 'La connexion via le service a échoué. Veuillez réessayer.',
  'answer.signedIn': ({ provider }) => `Vous êtes connecté avec ${provider}.`,
} satisfies Translation<SocialEnglish>;
