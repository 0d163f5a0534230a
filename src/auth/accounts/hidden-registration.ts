import type { UserRecord } from '../core/users.ts';
import type { RequestContext } from '../core/request-context.ts';
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
  await emails.send('registrationAttempt', { to: owner.email, username: owner.username }, (props) => ({
    subject: 'Someone tried to register with your address',
    intro: `Someone tried to create an account on ${props.appName} with this email address, which already belongs to your account ${props.username}. No new account was created.`,
    outro:
      'If it was you, sign in instead, or use "Forgot password" on the sign-in page. If it was not you, you can ignore this email: your account is unchanged.',
  }));
}
