import type { Translation } from '../../../core/i18n/types.ts';
import type { AuthEnglish } from './en.ts';

// Field labels come from the schemas in English: the texts below name no label, the form shows it.
export const de = {
  'field.required': 'Bitte füllen Sie dieses Feld aus.',
  'field.minLength': ({ limit }, f) =>
    f.plural(limit, {
      one: 'Bitte geben Sie mindestens # Zeichen ein.',
      other: 'Bitte geben Sie mindestens # Zeichen ein.',
    }),
  'field.maxLength': ({ limit }, f) =>
    f.plural(limit, {
      one: 'Bitte geben Sie höchstens # Zeichen ein.',
      other: 'Bitte geben Sie höchstens # Zeichen ein.',
    }),
  'field.email': 'Bitte geben Sie eine gültige E-Mail-Adresse ein.',
  'field.invalid': 'Dieser Wert ist ungültig.',
  'field.text': 'Bitte geben Sie einen Text ein.',
  'field.boolean': 'Erlaubt sind nur „true“ oder „false“.',
  'field.number': 'Bitte geben Sie eine Zahl ein.',
  'field.minimum': ({ limit }, f) => `Der Wert muss mindestens ${f.number(limit)} betragen.`,
  'field.maximum': ({ limit }, f) => `Der Wert darf höchstens ${f.number(limit)} betragen.`,
  'field.list': 'Erwartet wird eine Liste.',
  'field.minItems': ({ limit }, f) => `Die Liste muss mindestens ${f.number(limit)} Einträge enthalten.`,
  'field.maxItems': ({ limit }, f) => `Die Liste darf höchstens ${f.number(limit)} Einträge enthalten.`,
  'field.invalidCharacter': 'Die Eingabe enthält ein unzulässiges Zeichen.',

  'password.tooShort': ({ min }, f) =>
    f.plural(min, {
      one: 'Das Passwort muss mindestens # Zeichen lang sein.',
      other: 'Das Passwort muss mindestens # Zeichen lang sein.',
    }),
  'password.tooLong': ({ max }, f) =>
    f.plural(max, {
      one: 'Das Passwort darf höchstens # Zeichen lang sein.',
      other: 'Das Passwort darf höchstens # Zeichen lang sein.',
    }),
  'password.common': 'Dieses Passwort ist zu verbreitet. Bitte wählen Sie ein anderes.',
  'password.mismatch': 'Die beiden Passwörter stimmen nicht überein.',

  'signIn.first': 'Bitte melden Sie sich zuerst an.',
  'signIn.expired': 'Dieser Anmeldeversuch ist abgelaufen. Bitte melden Sie sich erneut an.',
  'signIn.oneMoreStep': 'Noch ein Schritt, dann sind Sie angemeldet.',
  'signIn.disabled': 'Dieses Konto ist deaktiviert.',
  'signIn.disabledByAdmin': 'Dieses Konto wurde von einem Administrator deaktiviert.',
  'access.adminsOnly': 'Nur für Administratoren.',
  'access.notWhileImpersonating': 'Nicht verfügbar, solange Sie als eine andere Person handeln.',
  'token.invalid': 'Das Token ist ungültig oder abgelaufen.',
  'proof.required': 'Bitte geben Sie den Nachweis ein.',
  'proof.factorRequired': 'Bitte wählen Sie eine Methode.',

  'sudo.required': 'Bitte bestätigen Sie Ihre Identität, um fortzufahren.',
  'sudo.wrongCredential': 'Mit diesem Nachweis ist dieser Vorgang nicht möglich.',

  'notice.where': ({ device, ip }) => (ip ? ` von ${device} (${ip})` : ` von ${device}`),
  'notice.review':
    'Wenn Sie das waren, ist nichts weiter zu tun. Falls nicht, ändern Sie Ihr Passwort und prüfen Sie die Sitzungen und Sicherheitsereignisse in Ihren Kontoeinstellungen.',
  'notice.newDevice.subject': 'Neue Anmeldung bei Ihrem Konto',
  'notice.newDevice.intro': ({ username, where }) =>
    `Neue Anmeldung bei Ihrem Konto ${username}${where}. Dieses Gerät wurde für dieses Konto in letzter Zeit nicht verwendet.`,
  'notice.passwordChanged.subject': 'Ihr Passwort wurde geändert',
  'notice.passwordChanged.intro': ({ username, where }) =>
    `Das Passwort Ihres Kontos ${username} wurde geändert${where}.`,
  'notice.passwordReset.subject': 'Ihr Passwort wurde zurückgesetzt',
  'notice.passwordReset.intro': ({ username, where }) =>
    `Das Passwort Ihres Kontos ${username} wurde über einen per E-Mail gesendeten Link zurückgesetzt${where}. Alle Sitzungen wurden abgemeldet.`,
  'notice.emailChange.subject': 'Ihre E-Mail-Adresse wird geändert',
  'notice.emailChange.intro': ({ username, where, newEmail }) =>
    `Jemand hat${where} beantragt, die E-Mail-Adresse Ihres Kontos ${username} in ${newEmail} zu ändern. Die Adresse ändert sich erst, wenn der Link an die neue Adresse bestätigt wird – angemeldet bei diesem Konto.`,
  'notice.emailChange.anotherAddress': 'eine andere Adresse',
  'notice.factorAdded.subject': 'Eine Zwei-Faktor-Methode wurde hinzugefügt',
  'notice.factorAdded.intro': ({ username, where, factor }) =>
    `${factor} wurde Ihrem Konto ${username} hinzugefügt${where}.`,
  'notice.factorRemoved.subject': 'Eine Zwei-Faktor-Methode wurde entfernt',
  'notice.factorRemoved.intro': ({ username, where, factor }) =>
    `${factor} wurde aus Ihrem Konto ${username} entfernt${where}.`,
  'notice.factor.unnamed': 'Eine Zwei-Faktor-Methode',
  'notice.tokenCreated.subject': 'Ein persönliches Zugriffstoken wurde erstellt',
  'notice.tokenCreated.intro': ({ username, where, tokenName }) =>
    `Für Ihr Konto ${username} wurde ein persönliches Zugriffstoken namens „${tokenName}“ erstellt${where}.`,
  'notice.secondFactorLocked.subject': 'Die Zwei-Faktor-Anmeldung ist vorübergehend gesperrt',
  'notice.secondFactorLocked.intro': ({ username, where }) =>
    `Für Ihr Konto ${username} wurden zu viele falsche Zwei-Faktor-Codes eingegeben${where}. Die Code-Eingabe ist eine Weile gesperrt.`,
} satisfies Translation<AuthEnglish>;
