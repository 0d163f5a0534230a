import type { Translation } from '../../../plugin-api.ts';
import type { AccountsEnglish } from './en.ts';

export const fr = {
  'social.intro': 'Ou continuer avec :',
  'social.signInWith': ({ provider }) => `Se connecter avec ${provider}`,

  'login.title': 'Se connecter',
  'login.identifier': 'Adresse e-mail ou nom d’utilisateur',
  'login.password': 'Mot de passe',
  'login.remember': ({ days }, f) =>
    f.plural(days, { one: 'Rester connecté # jour', other: 'Rester connecté # jours' }),
  'login.submit': 'Se connecter',
  'login.or': 'ou',
  'login.passkey': 'Se connecter avec une clé d’accès',
  'login.forgot': 'Mot de passe oublié ?',
  'login.magicLink': 'Recevoir un lien de connexion par e-mail',
  'login.register': 'Créer un compte',

  'register.title': 'Créer un compte',
  'register.username': 'Nom d’utilisateur',
  'register.usernameHint': ({ min, max }, f) =>
    `De ${f.number(min)} à ${f.number(max)} lettres, chiffres et espaces.`,
  'register.email': 'Adresse e-mail',
  'register.password': 'Mot de passe',
  'register.passwordHint': ({ min, max }, f) =>
    `De ${f.number(min)} à ${f.number(max)} caractères, pas un mot de passe courant. Quelques mots sans rapport entre eux font très bien l’affaire.`,
  'register.confirm': 'Confirmer le mot de passe',
  'register.submit': 'Créer le compte',
  'register.already': 'Déjà inscrit ?',
  'register.signIn': 'Se connecter',

  'forgot.title': 'Mot de passe oublié ?',
  'forgot.intro':
    'Saisissez votre adresse e-mail. Si elle correspond à un compte, nous vous enverrons un lien pour choisir un nouveau mot de passe.',
  'forgot.email': 'Adresse e-mail',
  'forgot.submit': 'Envoyer le lien de réinitialisation',

  'reset.deadTitle': 'Ce lien de réinitialisation ne fonctionne plus',
  'reset.deadText': 'Les liens de réinitialisation ne servent qu’une fois et pour une courte durée.',
  'reset.newLink': 'Demander un nouveau lien',
  'reset.title': 'Choisir un nouveau mot de passe',
  'reset.password': 'Nouveau mot de passe',
  'reset.confirm': 'Confirmer le nouveau mot de passe',
  'reset.submit': 'Enregistrer le nouveau mot de passe',

  'home.signedInAs': ({ username, email }) => `Connecté en tant que ${username} (${email}).`,
  'home.account': 'Votre compte',
  'home.sessions': 'Sessions et appareils',
  'home.twoFactor': 'Réglages de la double authentification',
  'home.tokens': 'Jetons d’accès personnels',
  'home.password': 'Mot de passe',
  'home.apiDocs': 'Documentation de l’API',
  'home.welcome': 'Bienvenue.',
  'home.signIn': 'Se connecter',
  'home.register': 'Créer un compte',
  'home.or': ' ou ',

  'error.identifierRequired': 'Saisissez votre adresse e-mail ou votre nom d’utilisateur.',
  'error.usernameTaken': 'Ce nom d’utilisateur est déjà pris.',
  'error.emailTaken': 'Cette adresse e-mail est déjà enregistrée.',
  'error.invalidResetLink': 'Ce lien de réinitialisation n’est pas valide ou a expiré.',
  'error.invalidCredentials': 'Identifiants incorrects.',
  'error.credentials': 'L’adresse e-mail, le nom d’utilisateur ou le mot de passe est incorrect.',

  'answer.signedIn': 'Vous êtes connecté.',
  'answer.signedOut': 'Vous avez été déconnecté.',
  'answer.created': 'Votre compte a été créé et vous êtes connecté.',
  'answer.activationPending': 'Votre compte a été créé. Une étape reste nécessaire pour l’activer.',
  'answer.resetSent':
    'Si cette adresse correspond à un compte, un lien pour réinitialiser le mot de passe est en route.',
  'answer.passwordReset':
    'Votre mot de passe a été modifié. Veuillez vous connecter avec le nouveau mot de passe.',
  'mail.reset.subject': 'Réinitialisez votre mot de passe',
  'mail.reset.intro': ({ username, minutes }, f) =>
    f.plural(minutes, {
      one: `Quelqu’un a demandé à réinitialiser le mot de passe du compte ${username}. Si c’était vous, suivez le lien dans la minute.`,
      other: `Quelqu’un a demandé à réinitialiser le mot de passe du compte ${username}. Si c’était vous, suivez le lien dans les # minutes.`,
    }),
  'mail.reset.link': 'Choisir un nouveau mot de passe',
  'mail.reset.outro':
    'Si vous n’êtes pas à l’origine de cette demande, ignorez cet e-mail : votre mot de passe reste inchangé.',
  'mail.registrationAttempt.subject': 'Quelqu’un a tenté de s’inscrire avec votre adresse',
  'mail.registrationAttempt.intro': ({ app, username }) =>
    `Quelqu’un a tenté de créer un compte sur ${app} avec cette adresse e-mail, qui appartient déjà à votre compte ${username}. Aucun nouveau compte n’a été créé.`,
  'mail.registrationAttempt.outro':
    'Si c’était vous, connectez-vous plutôt, ou utilisez « Mot de passe oublié ? » sur la page de connexion. Sinon, vous pouvez ignorer cet e-mail : votre compte n’a pas changé.',
  'passkey.checking': 'Vérification de votre clé d’accès…',
  'passkey.rejected': 'Cette clé d’accès n’a pas permis de vous connecter.',
  'passkey.notUsed':
    'Aucune clé d’accès n’a été utilisée. Vous pouvez réessayer ou vous connecter avec votre mot de passe.',
  'error.usernamePattern':
    'Le nom d’utilisateur ne peut contenir que des lettres, des chiffres et des espaces.',
} satisfies Translation<AccountsEnglish>;
