import type { SafeHtml } from '../core/html.ts';

/**
 * Every message Citadel sends, by kind, with the data its text is made of. Each kind can be
 * replaced in the configuration (`emails: { resetPassword: (props, defaults) => ({ ... }) }`);
 * a custom transport (`mail: { send }`) receives the kind and these props with every message.
 */

/** What every message knows: its recipient and the account it is about. */
export interface EmailProps {
  /** The recipient's address. */
  to: string;
  /** The account's username (user-provided text: escape it in HTML, as `html` does). */
  username: string;
  /** APP_NAME. */
  appName: string;
  /** The language the message is written in (the recipient's, else the request's). */
  locale: string;
}

/** A message with a single-use link (the URL carries the token: it is a secret until used). */
export interface LinkEmailProps extends EmailProps {
  url: string;
  /** How long the link works. */
  expiresInMinutes: number;
}

/** A message with a 6-digit code (a secret until used). */
export interface CodeEmailProps extends EmailProps {
  code: string;
  expiresInMinutes: number;
}

/** A security notice (NOTIFY_EVENTS): where the change came from, never a link. */
export interface NoticeEmailProps extends EmailProps {
  /** The browser and system, as described from the User-Agent (user-controlled text), or null. */
  device: string | null;
  ip: string | null;
}

/** The message kinds, each with its props. */
export interface EmailKinds {
  /** Forgot password: a link to choose a new one. */
  resetPassword: LinkEmailProps;
  /** Sign in by email: a single-use sign-in link. */
  magicLink: LinkEmailProps;
  /** Email change: a link to the new address that confirms it (`to` is the new address). */
  confirmEmailChange: LinkEmailProps & { newEmail: string };
  /** The `email_2fa` sign-in step: a code. */
  signInCode: CodeEmailProps;
  /** The `email_activation` step of a new account: a code. */
  activationCode: CodeEmailProps;
  /** REGISTER_HIDE_EXISTING: someone tried to register with this (taken) address. */
  registrationAttempt: EmailProps;
  /** REGISTER_HIDE_EXISTING: someone asked to move another account to this (taken) address. */
  emailTakenNotice: EmailProps;
  /** Notice: a sign-in from a browser without this account's device cookie. */
  newDeviceNotice: NoticeEmailProps;
  /** Notice: the password was changed. */
  passwordChangedNotice: NoticeEmailProps;
  /** Notice: the password was reset by an emailed link. */
  passwordResetNotice: NoticeEmailProps;
  /** Notice to the old address: a change to `newEmail` was asked for. */
  emailChangeNotice: NoticeEmailProps & { newEmail: string };
  /** Notice: a two-factor method (`factor`, its label) was added. */
  factorAddedNotice: NoticeEmailProps & { factor: string };
  /** Notice: a two-factor method was removed. */
  factorRemovedNotice: NoticeEmailProps & { factor: string };
  /** Notice: a personal access token was created. */
  tokenCreatedNotice: NoticeEmailProps & { tokenName: string };
  /** Notice: two-factor code entry is locked after too many wrong codes. */
  secondFactorLockedNotice: NoticeEmailProps;
}

/** The name of one message kind (`resetPassword`, `magicLink`, ...). */
export type EmailKind = keyof EmailKinds;

/** A message's three parts. `html` is built with the `html` template (citadel/html), which escapes. */
export interface EmailContent {
  subject: string;
  text: string;
  html: SafeHtml;
}

/**
 * A replacement for one kind: any of the parts; the default's parts fill the rest. `defaults` is
 * the built-in message for the same props.
 */
export type EmailTemplate<K extends EmailKind> = (
  props: EmailKinds[K],
  defaults: EmailContent,
) => Partial<EmailContent> | Promise<Partial<EmailContent>>;

/** `emails` in the configuration: kinds to replace. */
export type EmailTemplates = { [K in EmailKind]?: EmailTemplate<K> };

/** The message a mail service sends: addresses, the final parts, and what it is. */
export interface OutgoingEmailBase {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * What `mail.send()` receives: `kind` and `props` say which message it is (a provider's own
 * templates can use them); a plugin's own message has no kind.
 */
export type OutgoingEmail =
  | { [K in EmailKind]: OutgoingEmailBase & { kind: K; props: EmailKinds[K] } }[EmailKind]
  | (OutgoingEmailBase & { kind?: undefined; props?: undefined });

/** `mail` in the configuration: replaces SMTP (any provider's SDK, a queue, a test's inbox). */
export interface MailService {
  /** Send one message; a rejection is an error of the request that sent it (notices: logged only). */
  send(message: OutgoingEmail): Promise<void> | void;
  /** Called when Citadel closes. */
  close?(): Promise<void> | void;
}

/** Every kind, in the order of `EmailKinds` (for documentation and tests). */
export const EMAIL_KINDS = [
  'resetPassword',
  'magicLink',
  'confirmEmailChange',
  'signInCode',
  'activationCode',
  'registrationAttempt',
  'emailTakenNotice',
  'newDeviceNotice',
  'passwordChangedNotice',
  'passwordResetNotice',
  'emailChangeNotice',
  'factorAddedNotice',
  'factorRemovedNotice',
  'tokenCreatedNotice',
  'secondFactorLockedNotice',
] as const satisfies readonly EmailKind[];

// The list names every kind: adding one to EmailKinds without listing it fails to compile.
type Unlisted = Exclude<EmailKind, (typeof EMAIL_KINDS)[number]>;
const everyKindListed: Unlisted extends never ? true : never = true;
void everyKindListed;
