import type { Translation } from '../../../plugin-api.ts';
import type { PipelineEnglish } from './en.ts';

export const fr = {
  'page.noStepTitle': 'Se connecter',
  'page.noStep': 'Aucune étape de connexion n’est en attente.',
  'page.signIn': 'Se connecter',
  'page.signingInAs': ({ email }) => `Connexion en tant que ${email}.`,
  'page.continue': 'Continuer',
  'page.resend': 'Envoyer un nouveau code',
  'page.cancel': 'Annuler',
  'page.continueToFinish': 'Continuez pour terminer la connexion.',

  'answer.newCode': 'Un nouveau code est en route.',
  'answer.nothingToSend': 'Cette étape n’a rien à envoyer.',
  'answer.nextStep': 'C’est fait. Une étape de plus est nécessaire.',
  'answer.signedIn': 'Vous êtes connecté.',
  'answer.cancelled': 'Connexion annulée.',
  'error.wrongCode': 'Le code n’est pas valide ou a expiré.',
  'error.tooMany': 'Trop de tentatives invalides. Veuillez vous reconnecter.',

  'code.label': 'Code reçu par e-mail',
  'code.wait': 'Patientez un peu avant de demander un nouveau code.',
  'code.required': 'Le code est obligatoire.',
  'code.format': 'Le code comporte 6 chiffres.',
  'email2fa.label': 'Saisissez le code que nous vous avons envoyé',
  'email2fa.subject': 'Votre code de connexion',
  'email2fa.intro': ({ username }) => `Utilisez ce code pour terminer la connexion au compte ${username}.`,
  'activation.label': 'Activer votre compte',
  'activation.subject': 'Activez votre compte',
  'activation.intro': ({ username }) => `Utilisez ce code pour activer le compte ${username}.`,
  'mail.outro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Le code est valable # minute et ne sert qu’une fois. Si vous n’avez pas essayé de vous connecter, changez votre mot de passe.',
      other:
        'Le code est valable # minutes et ne sert qu’une fois. Si vous n’avez pas essayé de vous connecter, changez votre mot de passe.',
    }),
} satisfies Translation<PipelineEnglish>;
