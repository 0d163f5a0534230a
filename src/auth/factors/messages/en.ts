import type { EnglishCatalog } from '../../../plugin-api.ts';

/** The two-factor plugin's texts in English: the typed source of its other languages. */
export const en = {
  'page.title': 'Two-factor authentication',
  'codes.title': 'Your recovery codes',
  'codes.intro':
    'Each code signs you in once if you lose your authenticator or passkey. Save them somewhere safe now: they are not shown again.',

  'totp.title': 'Authenticator app',
  'totp.setupTitle': 'Set up an authenticator app',
  'totp.setupIntro':
    'Scan the code with an authenticator app (for example 1Password, Google Authenticator or Aegis), then type the 6-digit code it shows.',
  'totp.qrAlt': 'QR code for your authenticator app',
  'totp.keyByHand': 'Or enter this key by hand:',
  'totp.code': 'Code from the app',
  'totp.turnOn': 'Turn on',
  'totp.cancel': 'Cancel setup',
  'totp.setup': 'Set up authenticator app',
  'totp.sudoHint': 'You will be asked to confirm it is you first.',
  'totp.enabled': 'Enabled.',
  'totp.remove': 'Remove authenticator app',
  'totp.removeConfirm': 'Remove the authenticator app from your account?',

  'passkeys.title': 'Passkeys',
  'passkeys.none': 'No passkeys yet.',
  'passkeys.name': 'Name',
  'passkeys.added': 'Added',
  'passkeys.lastUsed': 'Last used',
  'passkeys.never': 'Never',
  'passkeys.actions': 'Actions',
  'passkeys.remove': 'Remove',
  'passkeys.removeConfirm': ({ name }: { name: string }) => `Remove the passkey ${name}?`,
  'passkeys.newName': 'Name for a new passkey',
  'passkeys.placeholder': 'e.g. Laptop',
  'passkeys.add': 'Add a passkey',

  'recovery.title': 'Recovery codes',
  'recovery.remaining': ({ count }: { count: number }, f) =>
    f.plural(count, {
      one: '# unused recovery code left.',
      other: '# unused recovery codes left.',
    }),
  'recovery.create': 'Create new recovery codes',

  // The sign-in steps.
  'action.twoFactor': 'Two-factor authentication',
  'action.enroll': 'Set up two-factor authentication',
  'action.recoveryCodes': 'Save your recovery codes',
  'step.method': 'Method',
  'step.totpCode': 'Authenticator app code',
  'step.recoveryCode': 'Recovery code',
  'step.code': 'Code',
  'step.usePasskey': 'Use a passkey',
  'enroll.intro':
    'Your organisation requires a second factor. Scan this code with an authenticator app, then enter the 6-digit code it shows.',
  'enroll.keyByHand': 'Or type this key:',
  'enroll.codeRequired': 'Enter the code from the app.',
  'enroll.chooseFactor': 'Choose "totp" or "passkey".',
  'recoveryStep.intro':
    'Each code signs you in once if you lose your authenticator. Keep them somewhere safe: they are shown only now.',
  'recoveryStep.saved': 'I saved these codes',
  'recoveryStep.confirm': 'Confirm that you saved the codes.',

  // The factors, as a security notice names them.
  'factor.totp': 'Authenticator app',
  'factor.passkey': 'Passkey',

  'error.unknownFactor': 'Unknown factor.',
  'error.proofRequired': 'Proof is required.',
  'error.notAccepted': 'That proof was not accepted. Please try again.',
  'error.totpNotEnrolled': 'Authenticator app is not enrolled.',
  'error.passkeyNotEnrolled': 'Passkey is not enrolled.',
  'error.noRecoveryCodes': 'Recovery codes come with an enrolled two-factor method.',
  'error.required':
    'Two-factor authentication is required for your account: add another authenticator app or passkey before removing this one.',
  'error.totpExists': 'An authenticator app is already set up.',
  'error.tooManyPasskeys': ({ max }: { max: number }, f) =>
    f.plural(max, {
      one: 'At most # passkey can be registered.',
      other: 'At most # passkeys can be registered.',
    }),
  'error.passkeyRejected': 'That passkey could not sign you in.',
  'error.passkeyRejectedHint': 'That passkey could not sign you in. Try again or use your password.',

  'answer.totpStart': 'Scan the QR code, then enter a code from the app.',
  'answer.passkeyStart': 'Follow your browser to create a passkey.',
  'answer.totpEnabled': 'Authenticator app enabled.',
  'answer.passkeyAdded': 'Passkey added.',
  'answer.totpRemoved': 'Authenticator app removed.',
  'answer.passkeyRemoved': 'Passkey removed.',
  'answer.codesCreated': 'New recovery codes were created; the old ones no longer work.',
  'answer.signedIn': 'You are signed in.',

  // What the passkey script says in the page (data attributes of its status line).
  'script.waiting': 'Waiting for your passkey…',
  'script.notCreated': 'The passkey was not created.',
  'script.notUsed': 'The passkey was not used.',
  'script.unavailable': 'No passkey is available.',
  'script.failed': 'Something went wrong.',
  'script.codesTitle': 'Your recovery codes (shown once)',
  'script.codesSaved': 'I saved them',
} as const satisfies EnglishCatalog;

export type FactorsEnglish = typeof en;
