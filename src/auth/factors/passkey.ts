import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  type CitadelServices,
  ValidationError,
  type EnrollableFactor,
  type ProofScope,
  type RequestContext,
} from '../../plugin-api.ts';
import { putPending, takePending } from './pending.ts';
import { factorsMessages } from './messages/index.ts';

const ENROLL_KEY = 'enroll:passkey';
const challengeKey = (scope: ProofScope) => `passkey_challenge:${scope}`;
const MAX_NAME = 100;
const MAX_PASSKEYS = 20;

/** RP ID and origin come from APP_URL only, never from request headers. */
export function relyingParty(services: CitadelServices) {
  const url = new URL(services.config.appUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** A stable, opaque WebAuthn user handle: no user id or email is revealed to the authenticator. */
function userHandle(services: CitadelServices, userId: number): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(services.secrets.hmac('passkey-user-handle', String(userId)), 'hex').subarray(
    0,
    32,
  );
  return new Uint8Array(bytes);
}

export interface PasskeySummary {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export async function listPasskeys(services: CitadelServices, userId: number) {
  return services.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function passkeySummaries(services: CitadelServices, userId: number): Promise<PasskeySummary[]> {
  return (await listPasskeys(services, userId)).map((p) => ({
    id: p.credential_id,
    name: p.name,
    created_at: p.created_at,
    last_used_at: p.last_used_at,
  }));
}

export function parseTransports(value: string): AuthenticatorTransportFuture[] {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed)
      ? (parsed.filter((t) => typeof t === 'string') as AuthenticatorTransportFuture[])
      : [];
  } catch {
    return [];
  }
}

/** The proof may arrive as an object (JSON body) or as a JSON string (form field). */
export function parseJsonProof<T>(proof: unknown): T | null {
  if (typeof proof === 'string') {
    if (proof.length > 64 * 1024) return null;
    try {
      proof = JSON.parse(proof);
    } catch {
      return null;
    }
  }
  if (!proof || typeof proof !== 'object' || Array.isArray(proof)) return null;
  const candidate = proof as { id?: unknown; response?: unknown };
  if (typeof candidate.id !== 'string' || !candidate.response || typeof candidate.response !== 'object')
    return null;
  return proof as T;
}

export async function hasPasskey(services: CitadelServices, userId: number): Promise<boolean> {
  const row = await services.db
    .selectFrom('passkeys')
    .select('id')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export type StoredPasskey = Awaited<ReturnType<typeof listPasskeys>>[number];

/**
 * Check an assertion against a stored credential, the expected challenge, and APP_URL's origin and
 * RP ID; on success move the signature counter forward. The conditional update settles two
 * concurrent assertions with one counter value: only one of them moves it. The library rejects a
 * counter that did not increase (a cloned key).
 */
export async function verifyAssertion(
  request: RequestContext,
  stored: StoredPasskey,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  requireUserVerification: boolean,
): Promise<boolean> {
  const services = request.services;
  const { rpID, origin } = relyingParty(services);
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification,
      credential: {
        id: stored.credential_id,
        publicKey: new Uint8Array(Buffer.from(stored.public_key, 'base64url')),
        counter: Number(stored.counter),
        transports: parseTransports(stored.transports),
      },
    });
    if (!result.verified) return false;
    const newCounter = result.authenticationInfo.newCounter;
    let update = services.db
      .updateTable('passkeys')
      .set({ counter: newCounter, last_used_at: services.clock.now().toISOString() })
      .where('id', '=', stored.id);
    if (newCounter > 0) update = update.where('counter', '<', newCounter);
    const updated = await update.executeTakeFirst();
    return !(newCounter > 0 && Number(updated.numUpdatedRows) !== 1);
  } catch (error) {
    request.log.info({ err: { message: (error as Error).message } }, 'passkey assertion rejected');
    return false;
  }
}

export const passkeyFactor: EnrollableFactor = {
  id: 'passkey',
  label: 'Passkey',

  async isAvailable(request, user) {
    return hasPasskey(request.services, user.id);
  },

  async challenge(request, user, scope) {
    const services = request.services;
    const { rpID } = relyingParty(services);
    const keys = await listPasskeys(services, user.id);
    const options = await generateAuthenticationOptions({
      rpID,
      userVerification: 'preferred',
      allowCredentials: keys.map((k) => ({ id: k.credential_id, transports: parseTransports(k.transports) })),
    });
    putPending(request, challengeKey(scope), user.id, { challenge: options.challenge });
    return { options };
  },

  async verify(request, user, proof, scope) {
    const services = request.services;
    // One challenge, one attempt: a wrong or replayed assertion needs a fresh challenge.
    const pending = takePending<{ challenge: string }>(request, challengeKey(scope), user.id);
    const response = parseJsonProof<AuthenticationResponseJSON>(proof);
    if (!pending || !response) return false;
    const stored = await services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('credential_id', '=', response.id)
      .executeTakeFirst();
    if (!stored) return false;
    return verifyAssertion(request, stored, response, pending.challenge, false);
  },

  async enrollStart(request, user, body) {
    const services = request.services;
    const keys = await listPasskeys(services, user.id);
    if (keys.length >= MAX_PASSKEYS)
      throw new ValidationError({
        factor: factorsMessages.text('error.tooManyPasskeys', { max: MAX_PASSKEYS }),
      });
    const { rpID } = relyingParty(services);
    const options = await generateRegistrationOptions({
      rpName: services.config.appName,
      rpID,
      // The username, not the email: the browser's passkey picker shows it so people can tell their
      // accounts apart; the user handle stays an opaque HMAC (see docs/two-factor-and-sudo.md).
      userName: user.username,
      userDisplayName: user.username,
      userID: userHandle(services, user.id),
      attestationType: 'none',
      excludeCredentials: keys.map((k) => ({
        id: k.credential_id,
        transports: parseTransports(k.transports),
      })),
      // Discoverable, so the key can sign in with no username typed (POST /passkey/login).
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const name = typeof body.name === 'string' ? body.name.trim().slice(0, MAX_NAME) : '';
    putPending(request, ENROLL_KEY, user.id, { challenge: options.challenge, name });
    return { factor: 'passkey', options };
  },

  async enrollConfirm(request, user, proof, body, commit = (write) => write(request.services.db)) {
    const services = request.services;
    const pending = takePending<{ challenge: string; name: string }>(request, ENROLL_KEY, user.id);
    const response = parseJsonProof<RegistrationResponseJSON>(proof);
    if (!pending || !response) return false;
    const { rpID, origin } = relyingParty(services);
    let info;
    try {
      const result = await verifyRegistrationResponse({
        response,
        expectedChallenge: pending.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
      if (!result.verified) return false;
      info = result.registrationInfo;
    } catch (error) {
      request.log.info({ err: { message: (error as Error).message } }, 'passkey registration rejected');
      return false;
    }
    const credentialId = info.credential.id;
    // Indexed column limit; real authenticators use far shorter ids.
    if (credentialId.length > 191) return false;
    const existing = await services.db
      .selectFrom('passkeys')
      .select('id')
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    if (existing) return false;
    const given = typeof body.name === 'string' ? body.name.trim().slice(0, MAX_NAME) : '';
    const count = (await listPasskeys(services, user.id)).length;
    const values = {
      user_id: user.id,
      credential_id: credentialId,
      public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: JSON.stringify(info.credential.transports ?? []),
      name: given || pending.name || `Passkey ${count + 1}`,
      created_at: services.clock.now().toISOString(),
      last_used_at: null,
    };
    const inserted = await commit((db) => db.insertInto('passkeys').values(values).execute())
      // The unique credential id settles a race between two confirmations of one key.
      .then(() => true)
      .catch(async (error: unknown) => {
        const taken = await services.db
          .selectFrom('passkeys')
          .select('id')
          .where('credential_id', '=', credentialId)
          .executeTakeFirst();
        if (taken) return false;
        throw error;
      });
    return inserted;
  },

  async unenroll(request, user, body, commit = (write) => write(request.services.db)) {
    const credentialId = body.credential_id;
    const one = credentialId !== undefined && credentialId !== null && credentialId !== '';
    if (one && typeof credentialId !== 'string') return false;
    return commit(async (db) => {
      let query = db.deleteFrom('passkeys').where('user_id', '=', user.id);
      if (one) query = query.where('credential_id', '=', credentialId as string);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  },
};
