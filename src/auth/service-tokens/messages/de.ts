import type { Translation } from '../../../plugin-api.ts';
import type { ServiceTokensEnglish } from './en.ts';

/** Diensttokens auf Deutsch. */
export const de = {
  'error.abilitiesList': 'Die Berechtigungen müssen eine Liste von Berechtigungsnamen sein.',
  'error.abilityFormat':
    'Jede Berechtigung muss „*“, „<resource>:*“ oder „<resource>:read|create|update|delete“ lauten.',
  'error.noMintFromServiceToken': 'Ein Diensttoken kann kein weiteres Diensttoken erstellen.',
  'error.abilitiesBeyondToken': 'Ein Diensttoken kann nur Berechtigungen des Tokens haben, das es erstellt.',
} satisfies Translation<ServiceTokensEnglish>;
