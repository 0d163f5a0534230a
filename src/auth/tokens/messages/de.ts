import type { Translation } from '../../../plugin-api.ts';
import type { TokensEnglish } from './en.ts';

export const de = {
  'page.title': 'Persönliche Zugriffstokens',
  'page.copyNow': 'Kopieren Sie Ihr neues Token jetzt.',
  'page.shownOnce': 'Es wird nicht noch einmal angezeigt.',
  'page.copy': 'Token kopieren',
  'page.intro':
    'Mit Zugriffstokens können Skripte und API-Clients in Ihrem Namen handeln. Senden Sie ein Token in diesem Header:',
  'page.none': 'Sie haben keine Zugriffstokens.',
  'page.name': 'Name',
  'page.abilities': 'Berechtigungen',
  'page.lastUsed': 'Zuletzt verwendet',
  'page.neverUsed': 'Noch nie verwendet',
  'page.expires': 'Läuft ab',
  'page.noExpiry': 'Läuft nicht ab',
  'page.actions': 'Aktionen',
  'page.revoke': 'Widerrufen',
  'page.revokeConfirm': ({ name }) =>
    `Das Token „${name}“ widerrufen? Alles, was es verwendet, funktioniert dann nicht mehr.`,
  'page.createTitle': 'Token erstellen',
  'page.sudoNotice':
    'Zum Erstellen eines Tokens müssen Sie Ihre Identität kürzlich bestätigt haben. Sie werden beim Absenden danach gefragt und kehren anschließend mit Ihren Eingaben hierher zurück.',
  'page.confirmNow': 'Jetzt bestätigen',
  'page.nameHint': 'Wofür das Token gedacht ist, z. B. „CI-Deployment“.',
  'page.abilitiesHint':
    'Durch Kommas oder Leerzeichen getrennt, z. B. posts:read, posts:create. Leer lassen für alle Berechtigungen (*).',
  'page.expiresOn': 'Läuft ab am (optional)',
  'page.expiresHint': 'Das Token ist ab Beginn dieses Tages (00:00 UTC) ungültig.',
  'page.create': 'Token erstellen',

  'error.noAbility': 'Geben Sie mindestens eine Berechtigung an oder lassen Sie das Feld für „*“ weg.',
  'error.tooManyAbilities': ({ max }, f) =>
    f.plural(max, {
      one: 'Ein Token kann höchstens # Berechtigung haben.',
      other: 'Ein Token kann höchstens # Berechtigungen haben.',
    }),
  'error.abilityFormat':
    'Jede Berechtigung muss „*“, „<Ressource>:*“ oder „<Ressource>:read|create|update|delete“ lauten.',
  'error.expiryFormat':
    'Das Ablaufdatum muss ein ISO-8601-Zeitstempel sein, zum Beispiel 2030-01-31T12:00:00Z.',
  'error.expiryPast': 'Das Ablaufdatum muss in der Zukunft liegen.',
  'error.expiryBeyondCaller': 'Das Ablaufdatum darf nicht nach dem des anfragenden Tokens liegen.',
  'error.sameOrganization': 'Ein von einem Token erstelltes Token handelt in derselben Organisation.',
  'error.notMember': 'Sie sind kein Mitglied dieser Organisation.',
  'error.abilitiesBeyondCaller': 'Ein Token kann nur Tokens mit Berechtigungen erstellen, die es selbst hat.',
  'error.notFound': 'Token nicht gefunden.',

  'answer.created': 'Token erstellt. Kopieren Sie es jetzt: Es wird nicht noch einmal angezeigt.',
  'answer.revoked': 'Token widerrufen.',
  'error.abilitiesList': 'Berechtigungen müssen eine Liste von Berechtigungsnamen sein.',
} satisfies Translation<TokensEnglish>;
