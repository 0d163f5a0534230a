import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The post-sign-in pipeline's texts in English: the typed source of its other languages. */
export const en = {
  'page.noStepTitle': 'Sign in',
  'page.noStep': 'There is no sign-in step waiting.',
  'page.signIn': 'Sign in',
  'page.signingInAs': ({ email }: { email: string }) => `Signing in as ${email}.`,
  'page.continue': 'Continue',
  'page.resend': 'Send a new code',
  'page.cancel': 'Cancel',
  'page.continueToFinish': 'Continue to finish signing in.',

  'answer.newCode': 'A new code is on its way.',
  'answer.nothingToSend': 'This step has nothing to send.',
  'answer.nextStep': 'Done. One more step is needed.',
  'answer.signedIn': 'You are signed in.',
  'answer.cancelled': 'Sign-in cancelled.',
  'error.wrongCode': 'The code is invalid or has expired.',
  'error.tooMany': 'Too many invalid attempts. Please sign in again.',

  // The emailed-code steps.
  'code.label': 'Code from the email',
  'code.wait': 'Please wait a little before asking for another code.',
  'code.required': 'The code is required.',
  'code.format': 'The code has 6 digits.',
  'email2fa.label': 'Enter the code we emailed you',
  'email2fa.subject': 'Your sign-in code',
  'email2fa.intro': ({ username }: { username: string }) =>
    `Use this code to finish signing in to the account ${username}.`,
  'activation.label': 'Activate your account',
  'activation.subject': 'Activate your account',
  'activation.intro': ({ username }: { username: string }) =>
    `Use this code to activate the account ${username}.`,
  'mail.outro': ({ minutes }: { minutes: number }, f) =>
    f.plural(minutes, {
      one: 'The code is valid for # minute and works once. If you did not try to sign in, change your password.',
      other:
        'The code is valid for # minutes and works once. If you did not try to sign in, change your password.',
    }),
} as const satisfies EnglishCatalog;

export type PipelineEnglish = typeof en;
