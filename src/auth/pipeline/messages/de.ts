import type { Translation } from '../../../plugin-api.ts';
import type { PipelineEnglish } from './en.ts';

export const de = {
  'page.noStepTitle': 'Anmelden',
  'page.noStep': 'Es wartet kein Anmeldeschritt.',
  'page.signIn': 'Anmelden',
  'page.signingInAs': ({ email }) => `Anmeldung als ${email}.`,
  'page.continue': 'Weiter',
  'page.resend': 'Neuen Code senden',
  'page.cancel': 'Abbrechen',
  'page.continueToFinish': 'Fahren Sie fort, um die Anmeldung abzuschließen.',

  'answer.newCode': 'Ein neuer Code ist unterwegs.',
  'answer.nothingToSend': 'Für diesen Schritt gibt es nichts zu senden.',
  'answer.nextStep': 'Erledigt. Ein weiterer Schritt ist nötig.',
  'answer.signedIn': 'Sie sind angemeldet.',
  'answer.cancelled': 'Anmeldung abgebrochen.',
  'error.wrongCode': 'Der Code ist ungültig oder abgelaufen.',
  'error.tooMany': 'Zu viele ungültige Versuche. Bitte melden Sie sich erneut an.',

  'code.label': 'Code aus der E-Mail',
  'code.wait': 'Bitte warten Sie einen Moment, bevor Sie einen neuen Code anfordern.',
  'code.required': 'Bitte geben Sie den Code ein.',
  'code.format': 'Der Code hat 6 Ziffern.',
  'email2fa.label': 'Geben Sie den Code ein, den wir Ihnen gesendet haben',
  'email2fa.subject': 'Ihr Anmeldecode',
  'email2fa.intro': ({ username }) =>
    `Mit diesem Code schließen Sie die Anmeldung beim Konto ${username} ab.`,
  'activation.label': 'Konto aktivieren',
  'activation.subject': 'Aktivieren Sie Ihr Konto',
  'activation.intro': ({ username }) => `Mit diesem Code aktivieren Sie das Konto ${username}.`,
  'mail.outro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Der Code gilt # Minute lang und nur einmal. Wenn Sie sich nicht anmelden wollten, ändern Sie Ihr Passwort.',
      other:
        'Der Code gilt # Minuten lang und nur einmal. Wenn Sie sich nicht anmelden wollten, ändern Sie Ihr Passwort.',
    }),
} satisfies Translation<PipelineEnglish>;
