import { type UserRecord, type RequestContext, recipientLocale } from '../../plugin-api.ts';
import { accountsMessages } from './messages/index.ts';

/** The one answer to a registration that needs activation, for a new and (hidden) a known address. */
export const ACTIVATION_PENDING = {
  action: 'register.action_required',
  status: 'info',
  message: accountsMessages.text('answer.activationPending'),
  redirect_to: '/action/show',
} as const;

/**
 * REGISTER_HIDE_EXISTING, for an address that already has an account: no account is made; its
 * owner gets a mail saying so (no link, no code: nothing in it signs anyone in). The caller hashed
 * the password like a real registration, so both answers take the same time class.
 */
export async function mailOwnerOfExistingAddress(request: RequestContext, owner: UserRecord): Promise<void> {
  const { emails } = request.services;
  // Like a new registration, the session starts over (a new registration clears it too).
  request.session.clear();
  request.caller = null;
  await emails.send(
    'registrationAttempt',
    { to: owner.email, username: owner.username, locale: recipientLocale(owner, request) },
    (props, language) => {
      const t = accountsMessages.in(language);
      return {
        subject: t('mail.registrationAttempt.subject'),
        intro: t('mail.registrationAttempt.intro', { app: props.appName, username: props.username }),
        outro: t('mail.registrationAttempt.outro'),
      };
    },
  );
}
