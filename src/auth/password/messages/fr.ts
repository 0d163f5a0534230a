import type { Translation } from '../../../plugin-api.ts';
import type { PasswordEnglish } from './en.ts';

export const fr = {
  'page.changeTitle': 'Changer de mot de passe',
  'page.setTitle': 'Définir un mot de passe',
  'page.changeIntro':
    'Changer de mot de passe vous déconnecte partout ailleurs. Il vous sera peut-être d’abord demandé de confirmer votre identité.',
  'page.setIntro':
    'Vous vous êtes inscrit avec un service de connexion. Définissez un mot de passe pour pouvoir aussi vous connecter avec votre adresse e-mail ou votre nom d’utilisateur.',
  'page.newPassword': 'Nouveau mot de passe',
  'page.confirmPassword': 'Confirmer le nouveau mot de passe',
  'page.change': 'Changer le mot de passe',
  'page.set': 'Définir le mot de passe',
  'answer.changed': 'Votre mot de passe a été modifié.',
  'answer.set': 'Votre mot de passe a été défini. Vous pouvez maintenant l’utiliser pour vous connecter.',
} satisfies Translation<PasswordEnglish>;
