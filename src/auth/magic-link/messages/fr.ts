import type { Translation } from '../../../plugin-api.ts';
import type { MagicLinkEnglish } from './en.ts';

export const fr = {
  'page.title': 'Se connecter par e-mail',
  'page.intro':
    'Saisissez votre adresse e-mail. Si elle correspond à un compte, nous vous enverrons un lien qui vous connecte.',
  'page.email': 'Adresse e-mail',
  'page.send': 'M’envoyer un lien',
  'page.passwordInstead': 'Se connecter plutôt avec un mot de passe',
  'sent.title': 'Consultez vos e-mails',
  'sent.intro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Si cette adresse correspond à un compte, nous lui avons envoyé un lien de connexion. Ouvrez-le dans ce navigateur : il ne sert qu’une fois et reste valable # minute.',
      other:
        'Si cette adresse correspond à un compte, nous lui avons envoyé un lien de connexion. Ouvrez-le dans ce navigateur : il ne sert qu’une fois et reste valable # minutes.',
    }),
  'sent.nothing': 'Rien reçu ? Vérifiez votre dossier de courrier indésirable.',
  'sent.another': 'Demander un nouveau lien',

  'answer.sent': 'Si cette adresse correspond à un compte, un lien de connexion est en route.',
  'answer.signedIn': 'Vous êtes connecté.',
  'error.invalidLink': 'Ce lien de connexion n’est pas valide, a déjà été utilisé ou a expiré.',
  'mail.subject': 'Votre lien de connexion',
  'mail.intro': ({ username, minutes }, f) =>
    f.plural(minutes, {
      one: `Quelqu’un a demandé à se connecter au compte ${username} par e-mail. Si c’était vous, suivez le lien dans la minute. Il ne fonctionne qu’une fois.`,
      other: `Quelqu’un a demandé à se connecter au compte ${username} par e-mail. Si c’était vous, suivez le lien dans les # minutes. Il ne fonctionne qu’une fois.`,
    }),
  'mail.link': 'Se connecter',
  'mail.outro':
    'Si vous n’êtes pas à l’origine de cette demande, ignorez cet e-mail : personne ne peut se connecter sans le lien.',
} satisfies Translation<MagicLinkEnglish>;
