import type { EnglishCatalog } from '../../../../src/plugin-api.ts';

/** The blog pages' texts in English: the typed source of their other languages. */
export const en = {
  // The front page.
  'front.title': 'Latest posts',
  'front.searchTitle': ({ search }: { search: string }) => `Posts matching “${search}”`,
  'front.write': 'Write a post',
  'front.myPosts': 'My posts',
  // `signIn` and `register` are the two links, written with 'front.signIn' and 'front.register'.
  'front.invite': ({ signIn, register }: { signIn: string; register: string }) =>
    `${signIn} or ${register} to write posts and comment.`,
  'front.signIn': 'Sign in',
  'front.register': 'create an account',
  'front.noMatch': 'No published post matches this search.',
  'front.nothing': 'Nothing is published yet.',
  'front.searchLabel': 'Search posts',
  'front.search': 'Search',
  'front.clear': 'Clear',
  'front.backToNewest': 'Back to the newest posts',

  // Lists and pagers.
  'list.pages': 'Pages',
  'list.newest': 'Newest posts',
  'list.older': 'Older posts',
  'list.mostRecent': 'Most recent',

  // A post.
  'post.by': ({ author }: { author: string }) => `by ${author}`,
  'post.someone': 'someone',
  'post.draft': 'Draft',
  'post.edit': 'Edit',
  'post.comments': ({ count }: { count: number }, f) => `Comments (${f.number(count)})`,
  'post.noComments': 'No comments yet.',
  'post.allPosts': 'All posts',
  'post.notFound': 'Post not found',
  'post.gone': 'This post is no longer there.',

  // The comment form.
  'comment.label': 'Your comment',
  'comment.hint': ({ username }: { username: string }) => `Shown as ${username}. At most 5,000 characters.`,
  'comment.submit': 'Add comment',
  // `signIn` is the link, written with 'comment.signIn'.
  'comment.signInFirst': ({ signIn }: { signIn: string }) => `${signIn} to comment.`,
  'comment.signIn': 'Sign in',

  // My posts.
  'mine.title': 'My posts',
  'mine.lastChanged': 'Last changed',
  'mine.publish': 'Publish',
  'mine.delete': 'Delete',
  'mine.noOlder': 'No older posts.',
  'mine.none': 'You have not written a post yet.',

  // The post form.
  'form.newTitle': 'Write a post',
  'form.editTitle': 'Edit post',
  'form.title': 'Title',
  'form.titleHint': 'Between 3 and 200 characters.',
  'form.text': 'Text',
  'form.textHint': 'Blank lines separate paragraphs.',
  'form.visibility': 'Visibility',
  'form.draft': 'Draft: only you see it',
  'form.published': 'Published: on the front page',
  'form.saveChanges': 'Save changes',
  'form.save': 'Save post',
  'form.backToMine': 'Back to my posts',

  // Answers.
  'answer.commentAdded': 'Your comment was added.',
  'answer.published': 'Your post is published.',
  'answer.draftSaved': 'Your draft is saved.',
  'answer.changesSaved': 'Your changes are saved.',
  'answer.deleted': 'The post is deleted.',
  'error.noPost': 'No post has this id.',
  'error.noOwnPost': 'No post of yours has this id.',
  'error.requestFailed': 'The request failed.',
  // A comment's post the commenter cannot see (the comments resource's refusal).
  'error.postNotVisible': 'is not a post you can see',

  // The front page's live updates (assets/live.js), given to the script by data attributes.
  'live.newPost': ({ title }: { title: string }) => `New post: ${title}`,
  'live.removed': 'A post was removed.',

  // The sign-in step asking to accept the terms of use (actions/accept-terms.ts).
  'terms.label': 'Accept the terms of use',
  'terms.intro': 'Please read and accept the terms of use of this blog to continue.',
  'terms.accept': 'I accept the terms of use',
  'terms.required': 'Please accept the terms of use to continue.',
} as const satisfies EnglishCatalog;

export type BlogEnglish = typeof en;
