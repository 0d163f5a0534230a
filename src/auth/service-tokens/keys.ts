import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/crypto.ts';
import type { Database } from '../../db/schema.ts';
import { retryOnDeadlock } from '../../db/retry.ts';
import './tables.ts';

/** A public key as `GET /.well-known/jwks.json` publishes it (RFC 8037). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** A retired key stays published this long past the token lifetime: a mint that read it just before the rotation. */
const PUBLICATION_MARGIN_SECONDS = 60;
const KID = /^[0-9a-f]{32}$/;

const sealPurpose = (kid: string) => `service-token-key:${kid}`;

/** The oldest `retired_at` of a key still published at `now`. */
function publicationCutoff(now: Date, ttlSeconds: number): string {
  return new Date(now.getTime() - (ttlSeconds + PUBLICATION_MARGIN_SECONDS) * 1000).toISOString();
}

/**
 * Add a signing key: it signs from now on, the keys before it are retired (still published until
 * their last token has expired), and keys whose publication has ended are removed. The private key
 * is stored sealed (AES-256-GCM, key derived by HKDF from the session secret). Returns its `kid`.
 */
export async function addSigningKey(
  db: Kysely<Database>,
  clock: Clock,
  secrets: SecretBox,
  ttlSeconds: number,
): Promise<string> {
  const kid = randomBytes(16).toString('hex');
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  const jwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: x!, kid, alg: 'EdDSA', use: 'sig' };
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const now = clock.now();
  await retryOnDeadlock(() =>
    db.transaction().execute(async (trx) => {
      await trx
        .updateTable('service_token_keys')
        .set({ retired_at: now.toISOString() })
        .where('retired_at', 'is', null)
        .execute();
      await trx
        .deleteFrom('service_token_keys')
        .where('retired_at', '<=', publicationCutoff(now, ttlSeconds))
        .execute();
      await trx
        .insertInto('service_token_keys')
        .values({
          kid,
          public_jwk: JSON.stringify(jwk),
          private_key_sealed: secrets.encrypt(sealPurpose(kid), pem),
          created_at: now.toISOString(),
          retired_at: null,
        })
        .execute();
    }),
  );
  return kid;
}

/**
 * The signing keys of one server: the current one (read at every mint, so a rotation by another
 * process signs from then on), and the public keys by `kid`, kept in memory: verifying a token
 * reads the database only for a `kid` it has not seen.
 */
export class KeyRing {
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly publicKeys = new Map<string, KeyObject>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
    private readonly ttlSeconds: number,
  ) {}

  /** The key that signs now; the first mint of a new installation creates it. */
  async signingKey(): Promise<SigningKey> {
    let row = await this.currentRow();
    if (!row) {
      await addSigningKey(this.db, this.clock, this.secrets, this.ttlSeconds);
      row = await this.currentRow();
      if (!row) throw new Error('no signing key after creating one');
    }
    let privateKey = this.privateKeys.get(row.kid);
    if (!privateKey) {
      privateKey = createPrivateKey(this.secrets.decrypt(sealPurpose(row.kid), row.private_key_sealed));
      this.privateKeys.set(row.kid, privateKey);
      // Its tokens are verified here too: no read for the key when they come back.
      this.remember(row.kid, createPublicKey(privateKey));
    }
    return { kid: row.kid, privateKey };
  }

  private currentRow() {
    return this.db
      .selectFrom('service_token_keys')
      .select(['kid', 'private_key_sealed'])
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('kid', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The published public keys: the signing key and the retired ones whose tokens may still be live. */
  async published(): Promise<PublicJwk[]> {
    const rows = await this.db
      .selectFrom('service_token_keys')
      .select(['public_jwk'])
      .where((eb) =>
        eb.or([
          eb('retired_at', 'is', null),
          eb('retired_at', '>', publicationCutoff(this.clock.now(), this.ttlSeconds)),
        ]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('kid', 'desc')
      .execute();
    return rows.map((row) => JSON.parse(row.public_jwk) as PublicJwk);
  }

  /**
   * The public key of `kid`, or undefined when it is not (or no longer) published. A `kid` not
   * seen yet (a key another process added) is one read by primary key, as a personal access
   * token's lookup is: no worse for a caller who sends made-up ones.
   */
  async publicKey(kid: unknown): Promise<KeyObject | undefined> {
    if (typeof kid !== 'string' || !KID.test(kid)) return undefined;
    const known = this.publicKeys.get(kid);
    if (known) return known;
    const row = await this.db
      .selectFrom('service_token_keys')
      .select(['public_jwk', 'retired_at'])
      .where('kid', '=', kid)
      .executeTakeFirst();
    const cutoff = publicationCutoff(this.clock.now(), this.ttlSeconds);
    if (!row || (row.retired_at !== null && row.retired_at <= cutoff)) return undefined;
    const key = createPublicKey({ key: { ...(JSON.parse(row.public_jwk) as PublicJwk) }, format: 'jwk' });
    this.remember(kid, key);
    return key;
  }

  private remember(kid: string, key: KeyObject): void {
    // Keys are few (one per rotation); the bound only guards against surprises.
    if (this.publicKeys.size >= 100) this.publicKeys.clear();
    this.publicKeys.set(kid, key);
  }
}
