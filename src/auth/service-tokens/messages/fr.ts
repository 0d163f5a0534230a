import type { Translation } from '../../../plugin-api.ts';
import type { ServiceTokensEnglish } from './en.ts';

/** Les jetons de service en français. */
export const fr = {
  'error.abilitiesList': 'Les autorisations doivent être une liste de noms d’autorisations.',
  'error.abilityFormat':
    'Chaque autorisation doit être « * », « <resource>:* » ou « <resource>:read|create|update|delete ».',
  'error.noMintFromServiceToken': 'Un jeton de service ne peut pas en créer un autre.',
  'error.abilitiesBeyondToken':
    'Un jeton de service ne peut avoir que des autorisations du jeton qui le crée.',
} satisfies Translation<ServiceTokensEnglish>;
