import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import {
  type CitadelServices,
  type UserRecord,
  ConflictError,
  type EnrollableFactor,
  type RequestContext,
} from '../../plugin-api.ts';
import { peekPending, putPending, takePending } from './pending.ts';
import { factorsMessages } from './messages/index.ts';

const PERIOD = 30;
const DIGITS = 6;
/** ±1 step of clock drift. */
const WINDOW = 1;
const ENROLL_KEY = 'enroll:totp';
const ENC_PURPOSE = 'totp';
const CODE = /^\d{6}$/;

/** `issuer` names the account in authenticator apps: the configured APP_NAME. */
function totpFor(account: string, secret: Secret, issuer = 'Citadel'): TOTP {
  return new TOTP({
    issuer,
    label: account,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret,
  });
}

/**
 * The time step a code belongs to (within ±1 step of now), or null. Codes are compared by the
 * library over every candidate step of the window.
 */
function matchingStep(services: CitadelServices, secretBase32: string, code: unknown): number | null {
  if (typeof code !== 'string' && typeof code !== 'number') return null;
  const token = String(code).replace(/\s+/g, '');
  if (!CODE.test(token)) return null;
  const now = services.clock.now().getTime();
  const totp = totpFor('', Secret.fromBase32(secretBase32));
  const delta = totp.validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return null;
  return Math.floor(now / 1000 / PERIOD) + delta;
}

async function storedSecret(services: CitadelServices, userId: number) {
  const row = await services.db
    .selectFrom('totp_factors')
    .select(['secret_encrypted', 'last_used_step'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    secret: services.secrets.decrypt(ENC_PURPOSE, row.secret_encrypted),
    lastStep: Number(row.last_used_step),
  };
}

export async function hasTotp(services: CitadelServices, userId: number): Promise<boolean> {
  const row = await services.db
    .selectFrom('totp_factors')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Verify a code for an enrolled user and burn its time step, atomically, so it cannot be replayed. */
export async function verifyTotp(services: CitadelServices, userId: number, code: unknown): Promise<boolean> {
  const stored = await storedSecret(services, userId);
  if (!stored) return false;
  const step = matchingStep(services, stored.secret, code);
  if (step === null || step <= stored.lastStep) return false;
  // Conditional update: of two concurrent uses of one code, only one moves the step forward.
  const result = await services.db
    .updateTable('totp_factors')
    .set({ last_used_step: step })
    .where('user_id', '=', userId)
    .where('last_used_step', '<', step)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What the user scans or types: the key, the otpauth URI and its QR code. */
async function enrollmentDisplay(account: string, secret: Secret, issuer: string) {
  const uri = totpFor(account, secret, issuer).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return {
    secret: secret.base32,
    qr_uri: uri,
    qr_image: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
  };
}

/**
 * The enrollment in progress (after enroll/start, before a good code), so a page shown again after
 * a wrong code still has the QR code and key. Undefined when there is none or it expired.
 */
export async function pendingTotpEnrollment(request: RequestContext, user: UserRecord) {
  const pending = peekPending<{ secret: string }>(request, ENROLL_KEY, user.id);
  if (!pending) return undefined;
  const base32 = request.services.secrets.decrypt(ENC_PURPOSE, pending.secret);
  return enrollmentDisplay(user.email, Secret.fromBase32(base32), request.services.config.appName);
}

export const totpFactor: EnrollableFactor = {
  id: 'totp',
  label: 'Authenticator app',

  async isAvailable(request, user) {
    return hasTotp(request.services, user.id);
  },

  async challenge() {
    return {};
  },

  async verify(request, user, proof) {
    return verifyTotp(request.services, user.id, proof);
  },

  async enrollStart(request, user) {
    const services = request.services;
    if (await hasTotp(services, user.id)) throw new ConflictError(factorsMessages.text('error.totpExists'));
    // 160-bit secret, as RFC 4226 recommends for SHA-1.
    const secret = new Secret({ buffer: randomBytes(20).buffer });
    putPending(request, ENROLL_KEY, user.id, {
      secret: services.secrets.encrypt(ENC_PURPOSE, secret.base32),
    });
    return {
      factor: 'totp',
      ...(await enrollmentDisplay(user.email, secret, request.services.config.appName)),
    };
  },

  async enrollConfirm(request, user, proof, _body, commit = (write) => write(request.services.db)) {
    const services = request.services;
    const pending = peekPending<{ secret: string }>(request, ENROLL_KEY, user.id);
    if (!pending) return false;
    if (await hasTotp(services, user.id)) throw new ConflictError(factorsMessages.text('error.totpExists'));
    const secret = services.secrets.decrypt(ENC_PURPOSE, pending.secret);
    const step = matchingStep(services, secret, proof);
    if (step === null) return false;
    takePending(request, ENROLL_KEY, user.id);
    const row = commit((db) =>
      db
        .insertInto('totp_factors')
        .values({
          user_id: user.id,
          secret_encrypted: pending.secret,
          // The confirming code's step counts as used.
          last_used_step: step,
          created_at: services.clock.now().toISOString(),
        })
        .execute(),
    );
    // Two confirmations racing: the unique user_id lets one through, the other is told it is done.
    await row.catch(async (error: unknown) => {
      if (await hasTotp(services, user.id)) throw new ConflictError(factorsMessages.text('error.totpExists'));
      throw error;
    });
    return true;
  },

  async unenroll(request, user, _body, commit = (write) => write(request.services.db)) {
    return commit(async (db) => {
      const result = await db.deleteFrom('totp_factors').where('user_id', '=', user.id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  },
};
