import type { CitadelServices } from './services.ts';
import type { EmailKind, EmailKinds } from '../../mail/kinds.ts';
import { accountSettings, type NotificationId } from './account-settings.ts';
import type { EmailPropsInput } from '../../mail/emails.ts';
import type { Language } from '../../core/i18n/catalog.ts';
import { authMessages } from './messages/index.ts';
import { describeDevice } from './device.ts';

export interface NotificationFacts {
  /** Where it happened: a device description and an address, never a secret. */
  device?: string;
  /** The User-Agent it came from, described in the notice's language (in place of `device`). */
  userAgent?: string | null;
  ip?: string | null;
  /** Factor label, token name, new address… */
  subject?: string;
  /** The language of the request that caused it: the notice's, when the recipient chose none. */
  locale?: string;
}

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

type NoticeKind = (typeof KINDS)[NotificationId];

/** The default subject and first paragraph of each notice, in `language`. */
function content(kind: NoticeKind, props: EmailKinds[NoticeKind], language: Language) {
  const t = authMessages.in(language);
  const { username } = props;
  const where = props.device ? t('notice.where', { device: props.device, ip: props.ip }) : '';
  switch (kind) {
    case 'newDeviceNotice':
      return {
        subject: t('notice.newDevice.subject'),
        intro: t('notice.newDevice.intro', { username, where }),
      };
    case 'passwordChangedNotice':
      return {
        subject: t('notice.passwordChanged.subject'),
        intro: t('notice.passwordChanged.intro', { username, where }),
      };
    case 'passwordResetNotice':
      return {
        subject: t('notice.passwordReset.subject'),
        intro: t('notice.passwordReset.intro', { username, where }),
      };
    case 'emailChangeNotice': {
      const { newEmail } = props as EmailKinds['emailChangeNotice'];
      return {
        subject: t('notice.emailChange.subject'),
        intro: t('notice.emailChange.intro', {
          username,
          where,
          newEmail: newEmail || t('notice.emailChange.anotherAddress'),
        }),
      };
    }
    case 'factorAddedNotice': {
      const { factor } = props as EmailKinds['factorAddedNotice'];
      return {
        subject: t('notice.factorAdded.subject'),
        intro: t('notice.factorAdded.intro', {
          username,
          where,
          factor: factor || t('notice.factor.unnamed'),
        }),
      };
    }
    case 'factorRemovedNotice': {
      const { factor } = props as EmailKinds['factorRemovedNotice'];
      return {
        subject: t('notice.factorRemoved.subject'),
        intro: t('notice.factorRemoved.intro', {
          username,
          where,
          factor: factor || t('notice.factor.unnamed'),
        }),
      };
    }
    case 'tokenCreatedNotice':
      return {
        subject: t('notice.tokenCreated.subject'),
        intro: t('notice.tokenCreated.intro', {
          username,
          where,
          tokenName: (props as EmailKinds['tokenCreatedNotice']).tokenName,
        }),
      };
    case 'secondFactorLockedNotice':
      return {
        subject: t('notice.secondFactorLocked.subject'),
        intro: t('notice.secondFactorLocked.intro', { username, where }),
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
  to: { email: string; username: string; locale?: string | null },
  id: NotificationId,
  facts: NotificationFacts = {},
): Promise<void> {
  if (!accountSettings(services.config).notifyEvents.includes(id)) return Promise.resolve();
  const kind = KINDS[id];
  const locale = to.locale ?? facts.locale;
  const device =
    facts.userAgent !== undefined
      ? describeDevice(facts.userAgent, services.languages.get(locale))
      : (facts.device ?? null);
  const props = {
    to: to.email,
    username: to.username,
    locale,
    device,
    ip: facts.ip ?? null,
    // Only the kind's own props: what a custom mail service sees is what the kind declares.
    // Without a subject the text names "another address" / "a two-factor method" in its language.
    ...(kind === 'emailChangeNotice' ? { newEmail: facts.subject ?? '' } : {}),
    ...(kind === 'factorAddedNotice' || kind === 'factorRemovedNotice'
      ? { factor: facts.subject ?? '' }
      : {}),
    ...(kind === 'tokenCreatedNotice' ? { tokenName: facts.subject ?? '' } : {}),
  } as EmailPropsInput<typeof kind>;
  return services.emails
    .send(kind, props, (full, language) => ({
      ...content(kind, full, language),
      outro: authMessages.in(language)('notice.review'),
    }))
    .catch((error: unknown) => {
      services.log.error(
        { err: { message: (error as Error).message } },
        `could not send the ${id} notification`,
      );
    });
}
