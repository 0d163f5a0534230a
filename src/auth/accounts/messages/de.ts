import type { Translation } from '../../../plugin-api.ts';
import type { AccountsEnglish } from './en.ts';

export const de = {
  'social.intro': 'Oder weiter mit:',
  'social.signInWith': ({ provider }) => `Mit ${provider} anmelden`,

  'login.title': 'Anmelden',
  'login.identifier': 'E-Mail-Adresse oder Benutzername',
  'login.password': 'Passwort',
  'login.remember': ({ days }, f) =>
    f.plural(days, { one: '# Tag lang angemeldet bleiben', other: '# Tage lang angemeldet bleiben' }),
  'login.submit': 'Anmelden',
  'login.or': 'oder',
  'login.passkey': 'Mit Passkey anmelden',
  'login.forgot': 'Passwort vergessen?',
  'login.magicLink': 'Anmeldelink per E-Mail senden',
  'login.register': 'Konto erstellen',

  'register.title': 'Konto erstellen',
  'register.username': 'Benutzername',
  'register.usernameHint': ({ min, max }, f) =>
    `${f.number(min)} bis ${f.number(max)} Buchstaben, Ziffern und Leerzeichen.`,
  'register.email': 'E-Mail-Adresse',
  'register.password': 'Passwort',
  'register.passwordHint': ({ min, max }, f) =>
    `${f.number(min)} bis ${f.number(max)} Zeichen, kein häufig verwendetes Passwort. Einige Wörter, die nichts miteinander zu tun haben, eignen sich gut.`,
  'register.confirm': 'Passwort bestätigen',
  'register.submit': 'Konto erstellen',
  'register.already': 'Bereits registriert?',
  'register.signIn': 'Anmelden',

  'forgot.title': 'Passwort vergessen?',
  'forgot.intro':
    'Geben Sie Ihre E-Mail-Adresse ein. Gehört sie zu einem Konto, senden wir Ihnen einen Link, mit dem Sie ein neues Passwort wählen können.',
  'forgot.email': 'E-Mail-Adresse',
  'forgot.submit': 'Link zum Zurücksetzen senden',

  'reset.deadTitle': 'Dieser Link zum Zurücksetzen funktioniert nicht mehr',
  'reset.deadText': 'Links zum Zurücksetzen gelten nur einmal und nur für kurze Zeit.',
  'reset.newLink': 'Neuen Link anfordern',
  'reset.title': 'Neues Passwort wählen',
  'reset.password': 'Neues Passwort',
  'reset.confirm': 'Neues Passwort bestätigen',
  'reset.submit': 'Neues Passwort speichern',

  'home.signedInAs': ({ username, email }) => `Angemeldet als ${username} (${email}).`,
  'home.account': 'Ihr Konto',
  'home.sessions': 'Sitzungen und Geräte',
  'home.twoFactor': 'Zwei-Faktor-Einstellungen',
  'home.tokens': 'Persönliche Zugriffstokens',
  'home.password': 'Passwort',
  'home.apiDocs': 'API-Dokumentation',
  'home.welcome': 'Willkommen.',
  'home.signIn': 'Anmelden',
  'home.register': 'Konto erstellen',
  'home.or': ' oder ',

  'error.identifierRequired': 'Bitte geben Sie Ihre E-Mail-Adresse oder Ihren Benutzernamen ein.',
  'error.usernameTaken': 'Dieser Benutzername ist bereits vergeben.',
  'error.emailTaken': 'Diese E-Mail-Adresse ist bereits registriert.',
  'error.invalidResetLink': 'Dieser Link zum Zurücksetzen ist ungültig oder abgelaufen.',
  'error.invalidCredentials': 'Ungültige Anmeldedaten.',
  'error.credentials': 'E-Mail-Adresse, Benutzername oder Passwort ist falsch.',

  'answer.signedIn': 'Sie sind angemeldet.',
  'answer.signedOut': 'Sie wurden abgemeldet.',
  'answer.created': 'Ihr Konto wurde erstellt und Sie sind angemeldet.',
  'answer.activationPending': 'Ihr Konto wurde erstellt. Zur Aktivierung ist noch ein Schritt nötig.',
  'answer.resetSent':
    'Gehört die Adresse zu einem Konto, ist ein Link zum Zurücksetzen des Passworts unterwegs.',
  'answer.passwordReset': 'Ihr Passwort wurde geändert. Bitte melden Sie sich mit dem neuen Passwort an.',
  'mail.reset.subject': 'Passwort zurücksetzen',
  'mail.reset.intro': ({ username, minutes }, f) =>
    f.plural(minutes, {
      one: `Jemand möchte das Passwort des Kontos ${username} zurücksetzen. Wenn Sie das waren, öffnen Sie den Link innerhalb von # Minute.`,
      other: `Jemand möchte das Passwort des Kontos ${username} zurücksetzen. Wenn Sie das waren, öffnen Sie den Link innerhalb von # Minuten.`,
    }),
  'mail.reset.link': 'Neues Passwort wählen',
  'mail.reset.outro':
    'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
  'mail.registrationAttempt.subject': 'Jemand wollte sich mit Ihrer Adresse registrieren',
  'mail.registrationAttempt.intro': ({ app, username }) =>
    `Jemand wollte bei ${app} ein Konto mit dieser E-Mail-Adresse erstellen. Sie gehört bereits zu Ihrem Konto ${username}. Es wurde kein neues Konto erstellt.`,
  'mail.registrationAttempt.outro':
    'Wenn Sie das waren, melden Sie sich stattdessen an oder nutzen Sie „Passwort vergessen?“ auf der Anmeldeseite. Wenn nicht, können Sie diese E-Mail ignorieren: Ihr Konto ist unverändert.',
  'passkey.checking': 'Ihr Passkey wird geprüft …',
  'passkey.rejected': 'Mit diesem Passkey konnten Sie nicht angemeldet werden.',
  'passkey.notUsed':
    'Es wurde kein Passkey verwendet. Sie können es erneut versuchen oder sich mit Ihrem Passwort anmelden.',
  'error.usernamePattern': 'Der Benutzername darf nur Buchstaben, Ziffern und Leerzeichen enthalten.',
} satisfies Translation<AccountsEnglish>;
