import { type SignedInEvent, signInFactsFor, type SignInFact, notify } from '../../plugin-api.ts';
import { startSessionMeta } from './sessions.ts';
import { isKnownDevice, rememberDevice } from './device-cookie.ts';

/** A device unseen for this long counts as new. */
export const NEW_DEVICE_DAYS = 90;

/**
 * Read with the user at sign-in (one statement, auth/core/sign-in-facts.ts): whether this user
 * signed in before at all (a first sign-in notifies nobody). Whether this browser is a known
 * device is the device cookie's answer (device-cookie.ts), not a query.
 */
export const signInEventFacts: Record<string, SignInFact> = {
  'events.signed_in_before': (eb, userId) =>
    eb.exists(
      eb
        .selectFrom('security_events')
        .select('id')
        .where('user_id', '=', userId)
        .where('type', '=', 'sign_in'),
    ),
};

/**
 * Signed-in listener: the new session's device facts, the device cookie, whether this browser is
 * a new device for the user (a fact added to the core's `sign_in` event), and a notification when
 * it is: it carries no device cookie for the account from a sign-in within 90 days, whatever its
 * User-Agent says. A user's very first sign-in (registration) sends nothing: there is no earlier
 * device to compare with. The notice goes once the session and its event are stored.
 */
export async function recordSignIn({
  user,
  info,
  request,
  setCookie,
  signInDetail,
  afterCommit,
}: SignedInEvent) {
  const meta = startSessionMeta(request, info);
  const facts = await signInFactsFor(request, user);
  const knownDevice = isKnownDevice(request, user.id, NEW_DEVICE_DAYS);
  rememberDevice(request, setCookie, user.id);
  signInDetail.new_device = !knownDevice;
  if (facts['events.signed_in_before'] && !knownDevice)
    afterCommit(() => {
      void notify(request.services, user, 'new_device', {
        userAgent: meta.user_agent,
        ip: request.ip,
        locale: request.language.locale,
      });
    });
}
