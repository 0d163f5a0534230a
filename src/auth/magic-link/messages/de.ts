import type { Translation } from '../../../plugin-api.ts';
import type { MagicLinkEnglish } from './en.ts';

export const de = {
  'page.title': 'Per E-Mail anmelden',
  'page.intro':
    'Geben Sie Ihre E-Mail-Adresse ein. Gehört sie zu einem Konto, senden wir Ihnen einen Link, mit dem Sie sich anmelden.',
  'page.email': 'E-Mail-Adresse',
  'page.send': 'Link per E-Mail senden',
  'page.passwordInstead': 'Stattdessen mit Passwort anmelden',
  'sent.title': 'Prüfen Sie Ihr Postfach',
  'sent.intro': ({ minutes }, f) =>
    f.plural(minutes, {
      one: 'Gehört die Adresse zu einem Konto, haben wir einen Anmeldelink an sie gesendet. Öffnen Sie ihn in diesem Browser: Er gilt einmal und # Minute lang.',
      other:
        'Gehört die Adresse zu einem Konto, haben wir einen Anmeldelink an sie gesendet. Öffnen Sie ihn in diesem Browser: Er gilt einmal und # Minuten lang.',
    }),
  'sent.nothing': 'Nichts angekommen? Sehen Sie im Spam-Ordner nach.',
  'sent.another': 'Neuen Link anfordern',

  'answer.sent': 'Gehört die Adresse zu einem Konto, ist ein Anmeldelink unterwegs.',
  'answer.signedIn': 'Sie sind angemeldet.',
  'error.invalidLink': 'Dieser Anmeldelink ist ungültig, wurde bereits verwendet oder ist abgelaufen.',
  'mail.subject': 'Ihr Anmeldelink',
  'mail.intro': ({ username, minutes }, f) =>
    f.plural(minutes, {
      one: `Jemand möchte sich per E-Mail bei dem Konto ${username} anmelden. Wenn Sie das waren, öffnen Sie den Link innerhalb von # Minute. Er funktioniert nur einmal.`,
      other: `Jemand möchte sich per E-Mail bei dem Konto ${username} anmelden. Wenn Sie das waren, öffnen Sie den Link innerhalb von # Minuten. Er funktioniert nur einmal.`,
    }),
  'mail.link': 'Anmelden',
  'mail.outro':
    'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ohne den Link kann sich niemand anmelden.',
} satisfies Translation<MagicLinkEnglish>;
