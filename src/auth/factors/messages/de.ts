import type { Translation } from '../../../plugin-api.ts';
import type { FactorsEnglish } from './en.ts';

export const de = {
  'page.title': 'Zwei-Faktor-Authentifizierung',
  'codes.title': 'Ihre Wiederherstellungscodes',
  'codes.intro':
    'Mit jedem Code können Sie sich einmal anmelden, falls Sie Ihre Authenticator-App oder Ihren Passkey verlieren. Bewahren Sie die Codes jetzt sicher auf: Sie werden nicht noch einmal angezeigt.',

  'totp.title': 'Authenticator-App',
  'totp.setupTitle': 'Authenticator-App einrichten',
  'totp.setupIntro':
    'Scannen Sie den Code mit einer Authenticator-App (zum Beispiel 1Password, Google Authenticator oder Aegis) und geben Sie dann den angezeigten 6-stelligen Code ein.',
  'totp.qrAlt': 'QR-Code für Ihre Authenticator-App',
  'totp.keyByHand': 'Oder geben Sie diesen Schlüssel von Hand ein:',
  'totp.code': 'Code aus der App',
  'totp.turnOn': 'Aktivieren',
  'totp.cancel': 'Einrichtung abbrechen',
  'totp.setup': 'Authenticator-App einrichten',
  'totp.sudoHint': 'Sie werden zuerst gebeten, Ihre Identität zu bestätigen.',
  'totp.enabled': 'Aktiviert.',
  'totp.remove': 'Authenticator-App entfernen',
  'totp.removeConfirm': 'Die Authenticator-App aus Ihrem Konto entfernen?',

  'passkeys.title': 'Passkeys',
  'passkeys.none': 'Noch keine Passkeys.',
  'passkeys.name': 'Name',
  'passkeys.added': 'Hinzugefügt',
  'passkeys.lastUsed': 'Zuletzt verwendet',
  'passkeys.never': 'Nie',
  'passkeys.actions': 'Aktionen',
  'passkeys.remove': 'Entfernen',
  'passkeys.removeConfirm': ({ name }) => `Den Passkey „${name}“ entfernen?`,
  'passkeys.newName': 'Name für einen neuen Passkey',
  'passkeys.placeholder': 'z. B. Laptop',
  'passkeys.add': 'Passkey hinzufügen',

  'recovery.title': 'Wiederherstellungscodes',
  'recovery.remaining': ({ count }, f) =>
    f.plural(count, {
      one: 'Noch # unbenutzter Wiederherstellungscode.',
      other: 'Noch # unbenutzte Wiederherstellungscodes.',
    }),
  'recovery.create': 'Neue Wiederherstellungscodes erstellen',

  'action.twoFactor': 'Zwei-Faktor-Authentifizierung',
  'action.enroll': 'Zwei-Faktor-Authentifizierung einrichten',
  'action.recoveryCodes': 'Wiederherstellungscodes sichern',
  'step.method': 'Methode',
  'step.totpCode': 'Code aus der Authenticator-App',
  'step.recoveryCode': 'Wiederherstellungscode',
  'step.code': 'Code',
  'step.usePasskey': 'Passkey verwenden',
  'enroll.intro':
    'Ihre Organisation verlangt einen zweiten Faktor. Scannen Sie diesen Code mit einer Authenticator-App und geben Sie dann den angezeigten 6-stelligen Code ein.',
  'enroll.keyByHand': 'Oder geben Sie diesen Schlüssel ein:',
  'enroll.codeRequired': 'Geben Sie den Code aus der App ein.',
  'enroll.chooseFactor': 'Wählen Sie „totp“ oder „passkey“.',
  'recoveryStep.intro':
    'Mit jedem Code können Sie sich einmal anmelden, falls Sie Ihre Authenticator-App verlieren. Bewahren Sie die Codes sicher auf: Sie werden nur jetzt angezeigt.',
  'recoveryStep.saved': 'Ich habe die Codes gesichert',
  'recoveryStep.confirm': 'Bestätigen Sie, dass Sie die Codes gesichert haben.',

  'factor.totp': 'Authenticator-App',
  'factor.passkey': 'Passkey',

  'error.unknownFactor': 'Unbekannte Methode.',
  'error.proofRequired': 'Bitte geben Sie einen Nachweis an.',
  'error.notAccepted': 'Dieser Nachweis wurde nicht akzeptiert. Bitte versuchen Sie es erneut.',
  'error.totpNotEnrolled': 'Es ist keine Authenticator-App eingerichtet.',
  'error.passkeyNotEnrolled': 'Ein solcher Passkey ist nicht registriert.',
  'error.noRecoveryCodes':
    'Wiederherstellungscodes gibt es nur mit einer eingerichteten Zwei-Faktor-Methode.',
  'error.required':
    'Für Ihr Konto ist die Zwei-Faktor-Authentifizierung Pflicht: Fügen Sie eine weitere Authenticator-App oder einen weiteren Passkey hinzu, bevor Sie diese Methode entfernen.',
  'error.totpExists': 'Es ist bereits eine Authenticator-App eingerichtet.',
  'error.tooManyPasskeys': ({ max }, f) =>
    f.plural(max, {
      one: 'Es kann höchstens # Passkey registriert werden.',
      other: 'Es können höchstens # Passkeys registriert werden.',
    }),
  'error.passkeyRejected': 'Mit diesem Passkey konnten Sie nicht angemeldet werden.',
  'error.passkeyRejectedHint':
    'Mit diesem Passkey konnten Sie nicht angemeldet werden. Versuchen Sie es erneut oder verwenden Sie Ihr Passwort.',

  'answer.totpStart': 'Scannen Sie den QR-Code und geben Sie dann einen Code aus der App ein.',
  'answer.passkeyStart': 'Folgen Sie den Anweisungen Ihres Browsers, um einen Passkey zu erstellen.',
  'answer.totpEnabled': 'Authenticator-App aktiviert.',
  'answer.passkeyAdded': 'Passkey hinzugefügt.',
  'answer.totpRemoved': 'Authenticator-App entfernt.',
  'answer.passkeyRemoved': 'Passkey entfernt.',
  'answer.codesCreated': 'Neue Wiederherstellungscodes wurden erstellt; die alten sind ungültig.',
  'answer.signedIn': 'Sie sind angemeldet.',

  'script.waiting': 'Warten auf Ihren Passkey …',
  'script.notCreated': 'Der Passkey wurde nicht erstellt.',
  'script.notUsed': 'Der Passkey wurde nicht verwendet.',
  'script.unavailable': 'Es ist kein Passkey verfügbar.',
  'script.failed': 'Etwas ist schiefgelaufen.',
  'script.codesTitle': 'Ihre Wiederherstellungscodes (nur einmal angezeigt)',
  'script.codesSaved': 'Ich habe sie gesichert',
} satisfies Translation<FactorsEnglish>;
