import type { CitadelServices } from '../../http/fastify-types.ts';
import { composeMail } from '../../mail/templates.ts';
import { accountSettings, type NotificationId } from './settings.ts';

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

function content(id: NotificationId, username: string, facts: NotificationFacts) {
  const where = facts.device ? ` from ${facts.device}${facts.ip ? ` (${facts.ip})` : ''}` : '';
  switch (id) {
    case 'new_device':
      return {
        subject: 'New sign-in to your account',
        intro: `Your account ${username} was signed in to${where}, a device not seen for this account recently.`,
      };
    case 'password_changed':
      return {
        subject: 'Your password was changed',
        intro: `The password of your account ${username} was changed${where}.`,
      };
    case 'password_reset':
      return {
        subject: 'Your password was reset',
        intro: `The password of your account ${username} was reset with an emailed link${where}. Every session was signed out.`,
      };
    case 'email_change':
      return {
        subject: 'Your email address is being changed',
        intro: `Someone asked${where} to change the email address of your account ${username} to ${facts.subject ?? 'another address'}. It changes only when the link sent to the new address is confirmed, signed in to this account.`,
      };
    case 'factor_enrolled':
      return {
        subject: 'A two-factor method was added',
        intro: `${facts.subject ?? 'A two-factor method'} was added to your account ${username}${where}.`,
      };
    case 'factor_removed':
      return {
        subject: 'A two-factor method was removed',
        intro: `${facts.subject ?? 'A two-factor method'} was removed from your account ${username}${where}.`,
      };
    case 'token_created':
      return {
        subject: 'A personal access token was created',
        intro: `A personal access token named "${facts.subject ?? ''}" was created for your account ${username}${where}.`,
      };
    case 'second_factor_locked':
      return {
        subject: 'Two-factor sign-in is locked for now',
        intro: `Too many wrong two-factor codes were entered for your account ${username}${where}. Code entry is paused for a while.`,
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
  const { subject, intro } = content(id, to.username, facts);
  return services.mailer
    .send(composeMail(to.email, { subject, intro, outro: REVIEW }))
    .catch((error: unknown) => {
      services.log.error(
        { err: { message: (error as Error).message } },
        `could not send the ${id} notification`,
      );
    });
}
