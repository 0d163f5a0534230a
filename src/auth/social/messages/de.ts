import type { Translation } from '../../../plugin-api.ts';
import type { SocialEnglish } from './en.ts';

export const de = {
  'error.unknownProvider': 'Unbekannter Anmeldedienst.',
  'error.unreachable': 'Der Anmeldedienst ist gerade nicht erreichbar.',
  'error.refused': 'Der Anmeldedienst hat Sie nicht angemeldet.',
  'error.invalidAttempt': 'Dieser Anmeldeversuch ist ungültig oder abgelaufen. Bitte beginnen Sie erneut.',
  'error.failed': 'Die Anmeldung über den Anmeldedienst ist fehlgeschlagen. Bitte versuchen Sie es erneut.',
  'answer.signedIn': ({ provider }) => `Sie sind mit ${provider} angemeldet.`,
} satisfies Translation<SocialEnglish>;
