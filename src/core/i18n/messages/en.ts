import type { EnglishCatalog } from '../types.ts';

/**
 * The core's messages in English: the typed source of every other language. Keys are stable;
 * change a text freely, never a key's meaning.
 */
export const en = {
  // The page frame.
  'nav.main': 'Main',
  'nav.account': 'Account',
  'nav.sessions': 'Sessions',
  'nav.twoFactor': 'Two-factor',
  'nav.tokens': 'Tokens',
  'nav.signIn': 'Sign in',
  'nav.register': 'Create an account',
  'nav.signOut': 'Sign out',
  'nav.language': 'Language',
  'page.title': ({ title, app }: { title: string; app: string }) => `${title} · ${app}`,
  'impersonation.region': 'Impersonation',
  'impersonation.notice': ({ admin, user }: { admin: string; user: string }) =>
    `You (${admin}) are acting as ${user}. Their password, two-factor methods, tokens, email address and account cannot be changed meanwhile.`,
  'impersonation.stop': 'Stop',
  'time.utc': ({ at }: { at: string }, f) =>
    f.date(at, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC',

  // The error page.
  'errorPage.400': 'Bad request',
  'errorPage.401': 'Sign-in required',
  'errorPage.403': 'Not allowed',
  'errorPage.404': 'Not found',
  'errorPage.409': 'Conflict',
  'errorPage.413': 'Too large',
  'errorPage.422': 'Please check the form',
  'errorPage.429': 'Too many attempts',
  'errorPage.500': 'Server error',
  'errorPage.503': 'Temporarily unavailable',
  'errorPage.other': 'Something went wrong',
  'errorPage.home': 'Back to the start page',
  'errorPage.deadLinkTitle': 'This sign-in link no longer works',
  'errorPage.deadLinkText': 'Sign-in links work once and only for a short time.',
  'errorPage.newLink': 'Email me a new link',
  'errorPage.passwordInstead': 'Sign in with a password instead',

  // Answers of the core's errors (the envelope's `message`, a problem's `detail`).
  'error.validation': 'Validation failed.',
  'error.unexpected': 'Something went wrong. Please try again later.',
  'error.authenticationRequired': 'Authentication required.',
  'error.forbidden': 'Forbidden.',
  'error.notFound': 'Not found.',
  'error.conflict': 'Conflict.',
  'error.tooManyAttempts': 'Too many attempts. Please try again later.',
  'error.insufficientScope': ({ ability }: { ability: string }) =>
    `This token lacks the ability "${ability}".`,
  'error.impersonation': 'Not while acting as this user: stop impersonating first.',
  'error.bodyTooLarge': 'The request body is too large.',
  'error.bodyNotJson': 'The request body must be JSON.',
  'error.bodyUnreadable': 'The request could not be read (is the body valid JSON?).',
  'error.invalidJson': 'The request body is not valid JSON.',
  'error.noResource': 'No resource or operation exists at this path.',
  'error.status': ({ title }: { title: string }) => `${title}.`,

  // Problem titles (RFC 9110 reason phrases), by status.
  'problem.400': 'Bad Request',
  'problem.401': 'Unauthorized',
  'problem.403': 'Forbidden',
  'problem.404': 'Not Found',
  'problem.405': 'Method Not Allowed',
  'problem.406': 'Not Acceptable',
  'problem.409': 'Conflict',
  'problem.412': 'Precondition Failed',
  'problem.413': 'Content Too Large',
  'problem.414': 'URI Too Long',
  'problem.415': 'Unsupported Media Type',
  'problem.422': 'Unprocessable Content',
  'problem.428': 'Precondition Required',
  'problem.429': 'Too Many Requests',
  'problem.500': 'Internal Server Error',
  'problem.503': 'Service Unavailable',

  // Every email.
  'mail.signature': ({ app }: { app: string }) => `This message was sent by ${app}.`,
  'mail.code': ({ code }: { code: string }) => `Your code: ${code}`,

  // Validation texts (`errors.<field>`), by JSON Schema keyword.
  'invalid.required': 'is required',
  'invalid.type': ({ type }: { type: string }) =>
    `must be ${type === 'integer' || type === 'object' || type === 'array' ? 'an' : 'a'} ${type}`,
  'invalid.minLength': ({ limit }: { limit: number }, f) =>
    f.plural(limit, {
      one: 'must be at least # character long',
      other: 'must be at least # characters long',
    }),
  'invalid.maxLength': ({ limit }: { limit: number }, f) =>
    f.plural(limit, { one: 'must be at most # character long', other: 'must be at most # characters long' }),
  'invalid.minimum': ({ limit }: { limit: number }, f) => `must be at least ${f.number(limit)}`,
  'invalid.maximum': ({ limit }: { limit: number }, f) => `must be at most ${f.number(limit)}`,
  'invalid.format': ({ format }: { format: string }) => `must be a valid ${format}`,
  'invalid.pattern': 'has an invalid format',
  'invalid.enum': ({ allowed }: { allowed: readonly string[] }, f) =>
    `must be one of ${f.list(allowed, 'disjunction')}`,
  'invalid.additional': 'is not accepted here',
  'invalid.other': 'is invalid',
  'invalid.reservedKey': 'uses a reserved name (__proto__, constructor and prototype are refused)',
  // A browser described from its User-Agent (the names of browsers and systems are their own).
  'device.unknown': 'Unknown device',
  'device.browserOn': ({ browser, system }: { browser: string; system: string }) => `${browser} on ${system}`,
  'device.unknownBrowserOn': ({ system }: { system: string }) => `Unknown browser on ${system}`,
  'invalid.language': ({ available }: { available: readonly string[] }, f) =>
    `must be one of the available languages (${f.list(available)}) or null`,
} as const satisfies EnglishCatalog;

export type CoreEnglish = typeof en;
