import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { SignedInInfo } from '../../plugin.ts';
import type { UserRecord } from '../core/users.ts';
import { signInFactsFor, type SignInFact } from '../core/sign-in-facts.ts';
import { originOf, sessionEvent } from './events.ts';
import { describeDevice } from './device.ts';
import { startSessionMeta } from './sessions.ts';
import { notify } from './notify.ts';

/** A device unseen for this long counts as new (contract section 10). */
export const NEW_DEVICE_DAYS = 90;

function deviceOf(request: FastifyRequest): string {
  const ua = request.headers['user-agent'];
  return describeDevice(typeof ua === 'string' ? ua : null);
}

/**
 * The stored detail is `JSON.stringify({ device, ... })`, device first: a LIKE on its start finds
 * this device. Device names come from describeDevice's fixed list, which holds no LIKE wildcard.
 */
function deviceDetailPattern(device: string): string {
  return `{"device":${JSON.stringify(device).replace(/[%_\\]/g, '')},%`;
}

/**
 * Read with the user at sign-in (one statement, auth/core/sign-in-facts.ts): whether this user
 * signed in before at all (a first sign-in notifies nobody), and whether from this device within
 * 90 days.
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
  'events.device_seen': (eb, userId, request) => {
    const since = new Date(request.server.clock.now().getTime() - NEW_DEVICE_DAYS * 86_400_000).toISOString();
    return eb.exists(
      eb
        .selectFrom('security_events')
        .select('id')
        .where('user_id', '=', userId)
        .where('type', '=', 'sign_in')
        .where('created_at', '>=', since)
        .where(sql.ref('detail'), 'like', deviceDetailPattern(deviceOf(request))),
    );
  },
};

/**
 * Signed-in listener: the new session's device facts, the `sign_in` event, and a notification
 * when the device was not seen for this user in 90 days. A user's very first sign-in (registration)
 * sends nothing: there is no earlier device to compare with. The event commits with the new
 * session (contract 10); the notice goes once both are stored.
 */
export async function recordSignIn(request: FastifyRequest, user: UserRecord, info: SignedInInfo) {
  const services = request.server;
  const meta = startSessionMeta(request, info);
  const device = describeDevice(meta.user_agent);
  const facts = await signInFactsFor(request, user);
  const origin = originOf(request);
  const event = {
    userId: user.id,
    type: 'sign_in' as const,
    ...origin,
    detail: { device, method: info.method, remembered: meta.remembered },
  };
  request.session.alongWithSave(
    sessionEvent(services.clock, event, () => {
      if (facts['events.signed_in_before'] && !facts['events.device_seen'])
        void notify(services, user, 'new_device', { device, ip: origin.ip });
    }),
  );
}
