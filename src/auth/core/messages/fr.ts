import type { Translation } from '../../../core/i18n/types.ts';
import type { AuthEnglish } from './en.ts';

// Field labels come from the schemas in English: the texts below name no label, the form shows it.
export const fr = {
  'field.required': 'Ce champ est obligatoire.',
  'field.minLength': ({ limit }, f) =>
    f.plural(limit, { one: 'Saisissez au moins # caractère.', other: 'Saisissez au moins # caractères.' }),
  'field.maxLength': ({ limit }, f) =>
    f.plural(limit, { one: 'Saisissez au plus # caractère.', other: 'Saisissez au plus # caractères.' }),
  'field.email': 'Saisissez une adresse e-mail valide.',
  'field.invalid': 'Cette valeur n’est pas valide.',
  'field.text': 'Saisissez du texte.',
  'field.boolean': 'Seules les valeurs « true » ou « false » sont acceptées.',
  'field.number': 'Saisissez un nombre.',
  'field.minimum': ({ limit }, f) => `La valeur doit être au moins ${f.number(limit)}.`,
  'field.maximum': ({ limit }, f) => `La valeur doit être au plus ${f.number(limit)}.`,
  'field.list': 'Une liste est attendue.',
  'field.minItems': ({ limit }, f) => `La liste doit contenir au moins ${f.number(limit)} éléments.`,
  'field.maxItems': ({ limit }, f) => `La liste doit contenir au plus ${f.number(limit)} éléments.`,
  'field.invalidCharacter': 'La saisie contient un caractère non autorisé.',

  'password.tooShort': ({ min }, f) =>
    f.plural(min, {
      one: 'Le mot de passe doit contenir au moins # caractère.',
      other: 'Le mot de passe doit contenir au moins # caractères.',
    }),
  'password.tooLong': ({ max }, f) =>
    f.plural(max, {
      one: 'Le mot de passe doit contenir au plus # caractère.',
      other: 'Le mot de passe doit contenir au plus # caractères.',
    }),
  'password.common': 'Ce mot de passe est trop courant. Veuillez en choisir un autre.',
  'password.mismatch': 'Les deux mots de passe ne correspondent pas.',

  'signIn.first': 'Veuillez d’abord vous connecter.',
  'signIn.expired': 'Cette tentative de connexion a expiré. Veuillez vous reconnecter.',
  'signIn.oneMoreStep': 'Encore une étape pour terminer la connexion.',
  'signIn.disabled': 'Ce compte est désactivé.',
  'signIn.disabledByAdmin': 'Ce compte a été désactivé par un administrateur.',
  'access.adminsOnly': 'Réservé aux administrateurs.',
  'access.notWhileImpersonating': 'Indisponible pendant que vous agissez en tant qu’un autre utilisateur.',
  'token.invalid': 'Jeton invalide ou expiré.',
  'proof.required': 'Veuillez fournir la preuve demandée.',
  'proof.factorRequired': 'Veuillez choisir une méthode.',

  'sudo.required': 'Veuillez confirmer votre identité pour continuer.',
  'sudo.wrongCredential': 'Cette preuve d’identité ne peut pas servir pour cette opération.',

  'notice.where': ({ device, ip }) => (ip ? ` depuis ${device} (${ip})` : ` depuis ${device}`),
  'notice.review':
    'Si c’était vous, vous n’avez rien à faire. Sinon, changez votre mot de passe et vérifiez les sessions et les événements de sécurité dans les paramètres de votre compte.',
  'notice.newDevice.subject': 'Nouvelle connexion à votre compte',
  'notice.newDevice.intro': ({ username, where }) =>
    `Nouvelle connexion à votre compte ${username}${where}. Cet appareil n’a pas été utilisé récemment avec ce compte.`,
  'notice.passwordChanged.subject': 'Votre mot de passe a été modifié',
  'notice.passwordChanged.intro': ({ username, where }) =>
    `Le mot de passe de votre compte ${username} a été modifié${where}.`,
  'notice.passwordReset.subject': 'Votre mot de passe a été réinitialisé',
  'notice.passwordReset.intro': ({ username, where }) =>
    `Le mot de passe de votre compte ${username} a été réinitialisé grâce à un lien envoyé par e-mail${where}. Toutes les sessions ont été déconnectées.`,
  'notice.emailChange.subject': 'Votre adresse e-mail est en cours de modification',
  'notice.emailChange.intro': ({ username, where, newEmail }) =>
    `Quelqu’un a demandé${where} à remplacer l’adresse e-mail de votre compte ${username} par ${newEmail}. Elle ne change qu’une fois le lien envoyé à la nouvelle adresse confirmé, en étant connecté à ce compte.`,
  'notice.emailChange.anotherAddress': 'une autre adresse',
  'notice.factorAdded.subject': 'Une méthode de double authentification a été ajoutée',
  'notice.factorAdded.intro': ({ username, where, factor }) =>
    `${factor} a été ajouté à votre compte ${username}${where}.`,
  'notice.factorRemoved.subject': 'Une méthode de double authentification a été supprimée',
  'notice.factorRemoved.intro': ({ username, where, factor }) =>
    `${factor} a été supprimé de votre compte ${username}${where}.`,
  'notice.factor.unnamed': 'Une méthode de double authentification',
  'notice.tokenCreated.subject': 'Un jeton d’accès personnel a été créé',
  'notice.tokenCreated.intro': ({ username, where, tokenName }) =>
    `Un jeton d’accès personnel nommé « ${tokenName} » a été créé pour votre compte ${username}${where}.`,
  'notice.secondFactorLocked.subject': 'La double authentification est momentanément bloquée',
  'notice.secondFactorLocked.intro': ({ username, where }) =>
    `Trop de codes de double authentification erronés ont été saisis pour votre compte ${username}${where}. La saisie des codes est suspendue pendant un moment.`,
} satisfies Translation<AuthEnglish>;
