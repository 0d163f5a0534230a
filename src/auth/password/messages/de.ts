import type { Translation } from '../../../plugin-api.ts';
import type { PasswordEnglish } from './en.ts';

export const de = {
  'page.changeTitle': 'Passwort ändern',
  'page.setTitle': 'Passwort festlegen',
  'page.changeIntro':
    'Wenn Sie Ihr Passwort ändern, werden Sie überall sonst abgemeldet. Möglicherweise müssen Sie zuerst Ihre Identität bestätigen.',
  'page.setIntro':
    'Sie haben sich über einen Anmeldedienst registriert. Legen Sie ein Passwort fest, um sich auch mit Ihrer E-Mail-Adresse oder Ihrem Benutzernamen anzumelden.',
  'page.newPassword': 'Neues Passwort',
  'page.confirmPassword': 'Neues Passwort bestätigen',
  'page.change': 'Passwort ändern',
  'page.set': 'Passwort festlegen',
  'answer.changed': 'Ihr Passwort wurde geändert.',
  'answer.set': 'Ihr Passwort wurde festgelegt. Sie können sich jetzt damit anmelden.',
} satisfies Translation<PasswordEnglish>;
