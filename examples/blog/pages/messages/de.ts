import type { Translation } from '../../../../src/plugin-api.ts';
import type { BlogEnglish } from './en.ts';

/** The blog pages in German (formal "Sie"). */
export const de = {
  'front.title': 'Neueste Beiträge',
  'front.searchTitle': ({ search }) => `Beiträge zu „${search}“`,
  'front.write': 'Beitrag schreiben',
  'front.myPosts': 'Meine Beiträge',
  'front.invite': ({ signIn, register }) =>
    `${signIn} oder ${register}, um Beiträge zu schreiben und zu kommentieren.`,
  'front.signIn': 'Melden Sie sich an',
  'front.register': 'erstellen Sie ein Konto',
  'front.noMatch': 'Kein veröffentlichter Beitrag passt zu dieser Suche.',
  'front.nothing': 'Noch ist nichts veröffentlicht.',
  'front.searchLabel': 'Beiträge durchsuchen',
  'front.search': 'Suchen',
  'front.clear': 'Zurücksetzen',
  'front.backToNewest': 'Zurück zu den neuesten Beiträgen',

  'list.pages': 'Seiten',
  'list.newest': 'Neueste Beiträge',
  'list.older': 'Ältere Beiträge',
  'list.mostRecent': 'Neueste zuerst',

  'post.by': ({ author }) => `von ${author}`,
  'post.someone': 'jemandem',
  'post.draft': 'Entwurf',
  'post.edit': 'Bearbeiten',
  'post.comments': ({ count }, f) => `Kommentare (${f.number(count)})`,
  'post.noComments': 'Noch keine Kommentare.',
  'post.allPosts': 'Alle Beiträge',
  'post.notFound': 'Beitrag nicht gefunden',
  'post.gone': 'Diesen Beitrag gibt es nicht mehr.',

  'comment.label': 'Ihr Kommentar',
  'comment.hint': ({ username }) => `Erscheint als ${username}. Höchstens 5.000 Zeichen.`,
  'comment.submit': 'Kommentar hinzufügen',
  'comment.signInFirst': ({ signIn }) => `${signIn}, um zu kommentieren.`,
  'comment.signIn': 'Melden Sie sich an',

  'mine.title': 'Meine Beiträge',
  'mine.lastChanged': 'Zuletzt geändert',
  'mine.publish': 'Veröffentlichen',
  'mine.delete': 'Löschen',
  'mine.noOlder': 'Keine älteren Beiträge.',
  'mine.none': 'Sie haben noch keinen Beitrag geschrieben.',

  'form.newTitle': 'Beitrag schreiben',
  'form.editTitle': 'Beitrag bearbeiten',
  'form.title': 'Titel',
  'form.titleHint': 'Zwischen 3 und 200 Zeichen.',
  'form.text': 'Beitragstext',
  'form.textHint': 'Leerzeilen trennen Absätze.',
  'form.visibility': 'Sichtbarkeit',
  'form.draft': 'Entwurf: nur Sie sehen ihn',
  'form.published': 'Veröffentlicht: auf der Startseite',
  'form.saveChanges': 'Änderungen speichern',
  'form.save': 'Beitrag speichern',
  'form.backToMine': 'Zurück zu meinen Beiträgen',

  'answer.commentAdded': 'Ihr Kommentar wurde hinzugefügt.',
  'answer.published': 'Ihr Beitrag ist veröffentlicht.',
  'answer.draftSaved': 'Ihr Entwurf ist gespeichert.',
  'answer.changesSaved': 'Ihre Änderungen sind gespeichert.',
  'answer.deleted': 'Der Beitrag ist gelöscht.',
  'error.noPost': 'Es gibt keinen Beitrag mit dieser ID.',
  'error.noOwnPost': 'Sie haben keinen Beitrag mit dieser ID.',
  'error.requestFailed': 'Die Anfrage ist fehlgeschlagen.',
  'error.postNotVisible': 'ist kein Beitrag, den Sie sehen können',

  'live.newPost': ({ title }) => `Neuer Beitrag: ${title}`,
  'live.removed': 'Ein Beitrag wurde entfernt.',

  'terms.label': 'Nutzungsbedingungen akzeptieren',
  'terms.intro': 'Bitte lesen und akzeptieren Sie die Nutzungsbedingungen dieses Blogs, um fortzufahren.',
  'terms.accept': 'Ich akzeptiere die Nutzungsbedingungen',
  'terms.required': 'Bitte akzeptieren Sie die Nutzungsbedingungen, um fortzufahren.',
} satisfies Translation<BlogEnglish>;
