import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The service-tokens plugin's texts in English: the typed source of its other languages. */
export const en = {
  'error.abilitiesList': 'Abilities must be a list of ability names.',
  'error.abilityFormat':
    'Each ability must be "*", "<resource>:*" or "<resource>:read|create|update|delete".',
  'error.noMintFromServiceToken': 'A service token cannot mint another one.',
  'error.abilitiesBeyondToken': 'A service token can only hold abilities of the token that mints it.',
} as const satisfies EnglishCatalog;

export type ServiceTokensEnglish = typeof en;
