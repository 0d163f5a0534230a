import type { FastifyRequest } from 'fastify';
import type { SignedInInfo } from '../../plugin.ts';
import type { UserRecord } from '../core/users.ts';
import { originOf, recordSecurityEvent } from './events.ts';
import { describeDevice } from './device.ts';
import { startSessionMeta } from './sessions.ts';
import { notify } from './notify.ts';

/** A device unseen for this long counts as new (contract section 10). */
export const NEW_DEVICE_DAYS = 90;
/** How many recent sign-ins are compared; more than any real person's 90 days of devices. */
const RECENT_SIGN_INS = 500;

/**
 * Signed-in listener: the new session's device facts, the `sign_in` event, and a notification
 * when the device was not seen for this user in 90 days. A user's very first sign-in (registration)
 * sends nothing: there is no earlier device to compare with.
 */
export async function recordSignIn(request: FastifyRequest, user: UserRecord, info: SignedInInfo) {
  const services = request.server;
  const meta = startSessionMeta(request, info);
  const device = describeDevice(meta.user_agent);
  const since = new Date(services.clock.now().getTime() - NEW_DEVICE_DAYS * 86_400_000).toISOString();
  // One read serves both questions: the newest sign-ins (seen this device within 90 days?) and
  // whether there is any earlier sign-in at all (a first sign-in notifies nobody).
  const latest = await services.db
    .selectFrom('security_events')
    .select(['detail', 'created_at'])
    .where('user_id', '=', user.id)
    .where('type', '=', 'sign_in')
    .orderBy('created_at', 'desc')
    .limit(RECENT_SIGN_INS)
    .execute();
  const seen = latest.some(
    (row) => row.created_at >= since && (JSON.parse(row.detail) as { device?: string }).device === device,
  );
  const origin = originOf(request);
  // Recorded after the lookup above, so this very sign-in does not count as "seen before".
  await recordSecurityEvent(services.db, services.clock, {
    userId: user.id,
    type: 'sign_in',
    ...origin,
    detail: { device, method: info.method, remembered: meta.remembered },
  });
  if (seen) return;
  const earlier = latest.length > 0;
  if (earlier) void notify(services, user, 'new_device', { device, ip: origin.ip });
}
