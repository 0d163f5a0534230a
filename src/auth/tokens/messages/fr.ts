import type { Translation } from '../../../plugin-api.ts';
import type { TokensEnglish } from './en.ts';

export const fr = {
  'page.title': 'Jetons d’accès personnels',
  'page.copyNow': 'Copiez votre nouveau jeton maintenant.',
  'page.shownOnce': 'Il ne sera plus affiché.',
  'page.copy': 'Copier le jeton',
  'page.intro':
    'Les jetons permettent à des scripts et à des clients d’API d’agir en votre nom. Envoyez-en un dans cet en-tête :',
  'page.none': 'Vous n’avez aucun jeton.',
  'page.name': 'Nom',
  'page.abilities': 'Autorisations',
  'page.lastUsed': 'Dernière utilisation',
  'page.neverUsed': 'Jamais utilisé',
  'page.expires': 'Expire le',
  'page.noExpiry': 'N’expire pas',
  'page.actions': 'Actions',
  'page.revoke': 'Révoquer',
  'page.revokeConfirm': ({ name }) =>
    `Révoquer le jeton « ${name} » ? Tout ce qui l’utilise cessera de fonctionner.`,
  'page.createTitle': 'Créer un jeton',
  'page.sudoNotice':
    'Pour créer un jeton, vous devez avoir confirmé votre identité récemment. Elle vous sera demandée à l’envoi du formulaire, puis vous reviendrez ici avec votre saisie.',
  'page.confirmNow': 'Confirmer maintenant',
  'page.nameHint': 'À quoi sert le jeton, par exemple « Déploiement CI ».',
  'page.abilitiesHint':
    'Séparées par des virgules ou des espaces, par exemple posts:read, posts:create. Laissez vide pour toutes les autorisations (*).',
  'page.expiresOn': 'Date d’expiration (facultatif)',
  'page.expiresHint': 'Le jeton cesse de fonctionner au début de ce jour (00:00 UTC).',
  'page.create': 'Créer le jeton',

  'error.noAbility': 'Indiquez au moins une autorisation, ou omettez le champ pour « * ».',
  'error.tooManyAbilities': ({ max }, f) =>
    f.plural(max, {
      one: 'Un jeton peut avoir au plus # autorisation.',
      other: 'Un jeton peut avoir au plus # autorisations.',
    }),
  'error.abilityFormat':
    'Chaque autorisation doit être « * », « <ressource>:* » ou « <ressource>:read|create|update|delete ».',
  'error.expiryFormat':
    'La date d’expiration doit être un horodatage ISO 8601, par exemple 2030-01-31T12:00:00Z.',
  'error.expiryPast': 'La date d’expiration doit être dans le futur.',
  'error.expiryBeyondCaller':
    'La date d’expiration ne peut pas être postérieure à celle du jeton qui fait la demande.',
  'error.sameOrganization': 'Un jeton créé par un jeton agit dans la même organisation.',
  'error.notMember': 'Vous n’êtes pas membre de cette organisation.',
  'error.abilitiesBeyondCaller':
    'Un jeton ne peut créer que des jetons dotés d’autorisations qu’il possède lui-même.',
  'error.notFound': 'Jeton introuvable.',

  'answer.created': 'Jeton créé. Copiez-le maintenant : il ne sera plus affiché.',
  'answer.revoked': 'Jeton révoqué.',
  'error.abilitiesList': 'Les autorisations doivent être une liste de noms d’autorisations.',
} satisfies Translation<TokensEnglish>;
