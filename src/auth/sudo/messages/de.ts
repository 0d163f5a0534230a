import type { Translation } from '../../../plugin-api.ts';
import type { SudoEnglish } from './en.ts';

export const de = {
  'page.title': 'Bestätigen Sie Ihre Identität',
  'page.activeTitle': 'Der Sudo-Modus ist aktiv',
  'page.intro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Bestätigen Sie Ihre Identität mit einer dieser Methoden. Danach werden Sie # Minute lang nicht erneut gefragt.',
      other:
        'Bestätigen Sie Ihre Identität mit einer dieser Methoden. Danach werden Sie # Minuten lang nicht erneut gefragt.',
    }),
  'page.introFor': ({ purpose, minutes }, f) =>
    f.plural(minutes, {
      one: `Um ${purpose}, bestätigen Sie bitte Ihre Identität mit einer dieser Methoden. Danach werden Sie # Minute lang nicht erneut gefragt.`,
      other: `Um ${purpose}, bestätigen Sie bitte Ihre Identität mit einer dieser Methoden. Danach werden Sie # Minuten lang nicht erneut gefragt.`,
    }),
  'page.activeUntil': ({ until }) =>
    `Bis ${until} können Sie sicherheitsrelevante Änderungen vornehmen, ohne erneut gefragt zu werden.`,
  'page.continue': 'Weiter',
  'page.continueTo': ({ purpose }) => `Weiter, um ${purpose}`,
  'page.leave': 'Sudo-Modus beenden',
  'page.signInAgain': 'Bitte melden Sie sich erneut an, um fortzufahren.',
  'page.confirm': 'Bestätigen',
  'page.password': 'Passwort',
  'page.totp': 'Authenticator-App',
  'page.totpCode': 'Code aus der App',
  'page.passkey': 'Passkey',
  'page.usePasskey': 'Passkey verwenden',
  'page.recoveryCode': 'Wiederherstellungscode',

  'purpose.tokens': 'ein Zugriffstoken zu erstellen',
  'purpose.twoFactor': 'Ihre Zwei-Faktor-Einstellungen zu ändern',
  'purpose.email': 'Ihre E-Mail-Adresse zu ändern',
  'purpose.deleteAccount': 'Ihr Konto zu löschen',
  'purpose.password': 'Ihr Passwort zu ändern',

  'answer.notAvailable': 'Diese Methode steht für Ihr Konto nicht zur Verfügung.',
  'answer.notAccepted': 'Dieser Nachweis wurde nicht akzeptiert. Bitte versuchen Sie es erneut.',
  'answer.confirmed': 'Identität bestätigt.',
  'answer.left': 'Sie haben den Sudo-Modus beendet.',
  'passkey.waiting': 'Warten auf Ihren Passkey …',
  'passkey.notUsed': 'Der Passkey wurde nicht verwendet.',
  'passkey.unavailable': 'Es ist kein Passkey verfügbar.',
  'passkey.failed': 'Etwas ist schiefgelaufen.',
} satisfies Translation<SudoEnglish>;
