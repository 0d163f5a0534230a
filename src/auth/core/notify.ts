import type { CitadelServices } from './services.ts';
import type { EmailKind, EmailKinds, NoticeEmailProps } from '../../mail/kinds.ts';
import { accountSettings, type NotificationId } from './account-settings.ts';

export interface NotificationFacts {
  /** Where it happened: a device description and an address, never a secret. */
  device?: string;
  ip?: string | null;
  /** Factor label, token name, new address… */
  subject?: string;
}

const REVIEW =
  'If this was you, there is nothing to do. If it was not, change your password and review the ' +
  'sessions and security events in your account settings.';

/** Which message each notification is, and its props beyond the common ones. */
const KINDS = {
  new_device: 'newDeviceNotice',
  password_changed: 'passwordChangedNotice',
  password_reset: 'passwordResetNotice',
  email_change: 'emailChangeNotice',
  factor_enrolled: 'factorAddedNotice',
  factor_removed: 'factorRemovedNotice',
  token_created: 'tokenCreatedNotice',
  second_factor_locked: 'secondFactorLockedNotice',
} as const satisfies Record<NotificationId, EmailKind>;

function where(props: NoticeEmailProps): string {
  return props.device ? ` from ${props.device}${props.ip ? ` (${props.ip})` : ''}` : '';
}

/** The default subject and first paragraph of each notice. */
function content(kind: (typeof KINDS)[NotificationId], props: EmailKinds[typeof kind]) {
  const { username } = props;
  switch (kind) {
    case 'newDeviceNotice':
      return {
        subject: 'New sign-in to your account',
        intro: `A new sign-in to your account ${username}${where(props)}. This device has not been seen for this account recently.`,
      };
    case 'passwordChangedNotice':
      return {
        subject: 'Your password was changed',
        intro: `The password of your account ${username} was changed${where(props)}.`,
      };
    case 'passwordResetNotice':
      return {
        subject: 'Your password was reset',
        intro: `The password of your account ${username} was reset with an emailed link${where(props)}. Every session was signed out.`,
      };
    case 'emailChangeNotice':
      return {
        subject: 'Your email address is being changed',
        intro: `Someone asked${where(props)} to change the email address of your account ${username} to ${(props as EmailKinds['emailChangeNotice']).newEmail}. It changes only when the link sent to the new address is confirmed, signed in to this account.`,
      };
    case 'factorAddedNotice':
      return {
        subject: 'A two-factor method was added',
        intro: `${(props as EmailKinds['factorAddedNotice']).factor} was added to your account ${username}${where(props)}.`,
      };
    case 'factorRemovedNotice':
      return {
        subject: 'A two-factor method was removed',
        intro: `${(props as EmailKinds['factorRemovedNotice']).factor} was removed from your account ${username}${where(props)}.`,
      };
    case 'tokenCreatedNotice':
      return {
        subject: 'A personal access token was created',
        intro: `A personal access token named "${(props as EmailKinds['tokenCreatedNotice']).tokenName}" was created for your account ${username}${where(props)}.`,
      };
    case 'secondFactorLockedNotice':
      return {
        subject: 'Two-factor sign-in is locked for now',
        intro: `Too many wrong two-factor codes were entered for your account ${username}${where(props)}. Code entry is paused for a while.`,
      };
  }
}

/**
 * Send one security notification if NOTIFY_EVENTS keeps it on. Sent after the change committed,
 * never awaited by the response, and never with a link: a mail that asks nobody to click anything
 * cannot be imitated into a phishing lure that looks like ours.
 */
export function notify(
  services: CitadelServices,
  to: { email: string; username: string },
  id: NotificationId,
  facts: NotificationFacts = {},
): Promise<void> {
  if (!accountSettings(services.config).notifyEvents.includes(id)) return Promise.resolve();
  const kind = KINDS[id];
  const props = {
    to: to.email,
    username: to.username,
    device: facts.device ?? null,
    ip: facts.ip ?? null,
    // Only the kind's own props: what a custom mail service sees is what the kind declares.
    ...(kind === 'emailChangeNotice' ? { newEmail: facts.subject ?? 'another address' } : {}),
    ...(kind === 'factorAddedNotice' || kind === 'factorRemovedNotice'
      ? { factor: facts.subject ?? 'A two-factor method' }
      : {}),
    ...(kind === 'tokenCreatedNotice' ? { tokenName: facts.subject ?? '' } : {}),
  } as EmailKinds[typeof kind];
  return services.emails
    .send(kind, props, (full) => ({ ...content(kind, full), outro: REVIEW }))
    .catch((error: unknown) => {
      services.log.error(
        { err: { message: (error as Error).message } },
        `could not send the ${id} notification`,
      );
    });
}
