import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The accounts plugin's texts in English (sign-in, registration, password reset, home page). */
export const en = {
  'social.intro': 'Or continue with:',
  'social.signInWith': ({ provider }: { provider: string }) => `Sign in with ${provider}`,

  'login.title': 'Sign in',
  'login.identifier': 'Email or username',
  'login.password': 'Password',
  'login.remember': ({ days }: { days: number }, f) =>
    f.plural(days, { one: 'Keep me signed in for # day', other: 'Keep me signed in for # days' }),
  'login.submit': 'Sign in',
  'login.or': 'or',
  'login.passkey': 'Sign in with a passkey',
  'login.forgot': 'Forgot your password?',
  'login.magicLink': 'Email me a sign-in link',
  'login.register': 'Create an account',

  'register.title': 'Create an account',
  'register.username': 'Username',
  'register.usernameHint': ({ min, max }: { min: number; max: number }, f) =>
    `${f.number(min)} to ${f.number(max)} letters, digits and spaces.`,
  'register.email': 'Email',
  'register.password': 'Password',
  'register.passwordHint': ({ min, max }: { min: number; max: number }, f) =>
    `${f.number(min)} to ${f.number(max)} characters, not a commonly used password. A few unrelated words work well.`,
  'register.confirm': 'Confirm password',
  'register.submit': 'Create account',
  'register.already': 'Already registered?',
  'register.signIn': 'Sign in',

  'forgot.title': 'Forgot your password?',
  'forgot.intro':
    'Enter your email address. If it belongs to an account, we will send a link to choose a new password.',
  'forgot.email': 'Email',
  'forgot.submit': 'Send reset link',

  'reset.deadTitle': 'This reset link no longer works',
  'reset.deadText': 'Reset links work once and only for a short time.',
  'reset.newLink': 'Ask for a new link',
  'reset.title': 'Choose a new password',
  'reset.password': 'New password',
  'reset.confirm': 'Confirm new password',
  'reset.submit': 'Set new password',

  'home.signedInAs': ({ username, email }: { username: string; email: string }) =>
    `Signed in as ${username} (${email}).`,
  'home.account': 'Your account',
  'home.sessions': 'Sessions and devices',
  'home.twoFactor': 'Two-factor settings',
  'home.tokens': 'Personal access tokens',
  'home.password': 'Password',
  'home.apiDocs': 'API documentation',
  'home.welcome': 'Welcome.',
  'home.signIn': 'Sign in',
  'home.register': 'Create an account',
  'home.or': ' or ',

  'error.identifierRequired': 'Email or username is required.',
  'error.usernameTaken': 'This username is already taken.',
  'error.emailTaken': 'This email address is already registered.',
  'error.invalidResetLink': 'This reset link is invalid or has expired.',
  'error.invalidCredentials': 'Invalid credentials.',
  'error.credentials': 'The email, username or password is incorrect.',

  'answer.signedIn': 'You are signed in.',
  'answer.signedOut': 'You have been signed out.',
  'answer.created': 'Your account was created and you are signed in.',
  'answer.activationPending': 'Your account was created. One more step is needed to activate it.',
  'answer.resetSent': 'If that address belongs to an account, a link to reset the password is on its way.',
  'answer.passwordReset': 'Your password was changed. Please sign in with the new one.',
  'mail.reset.subject': 'Reset your password',
  'mail.reset.intro': ({ username, minutes }: { username: string; minutes: number }, f) =>
    f.plural(minutes, {
      one: `Someone asked to reset the password of the account ${username}. If it was you, follow the link within # minute.`,
      other: `Someone asked to reset the password of the account ${username}. If it was you, follow the link within # minutes.`,
    }),
  'mail.reset.link': 'Choose a new password',
  'mail.reset.outro': 'If you did not ask for this, ignore this email: your password stays as it is.',
  'mail.registrationAttempt.subject': 'Someone tried to register with your address',
  'mail.registrationAttempt.intro': ({ app, username }: { app: string; username: string }) =>
    `Someone tried to create an account on ${app} with this email address, which already belongs to your account ${username}. No new account was created.`,
  'mail.registrationAttempt.outro':
    'If it was you, sign in instead, or use "Forgot password" on the sign-in page. If it was not you, you can ignore this email: your account is unchanged.',
  // What the passkey sign-in script says (data attributes of its status line).
  'passkey.checking': 'Checking your passkey…',
  'passkey.rejected': 'That passkey could not sign you in.',
  'passkey.notUsed': 'No passkey was used. You can try again or sign in with your password.',
  'error.usernamePattern': 'Username may contain only letters, digits and spaces.',
} as const satisfies EnglishCatalog;

export type AccountsEnglish = typeof en;
