import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import {
  type Clock,
  type SecretBox,
  type Database,
  retryOnDeadlock,
  type JwsAlgorithm,
  type PublicJwk,
  type SigningKey,
  type SigningKeySet,
} from '../../plugin-api.ts';
import './tables.ts';

export type { PublicJwk, SigningKey } from '../../plugin-api.ts';

const generate = promisify(generateKeyPair);

/** A retired key stays published this long past the token lifetime: a mint that read it just before the rotation. */
const PUBLICATION_MARGIN_SECONDS = 60;
/** A retired key's row is deleted no sooner than this (its publication may be longer, see `KeyRing`). */
const RETENTION_SECONDS = 24 * 3600;
const KID = /^[0-9a-f]{32}$/;
/**
 * How long a read of the current signing key serves this process's mints (two per OAuth token
 * answer): a rotation by another process signs within this, well inside the publication margin.
 */
const CURRENT_KEY_REUSE_MS = 1000;
/** Bumped by every key this process adds: its own rotations sign at once. */
let keyGeneration = 0;

const sealPurpose = (kid: string) => `service-token-key:${kid}`;

/** The oldest `retired_at` of a key still published at `now`. */
function publicationCutoff(now: Date, lifetimeSeconds: number): string {
  return new Date(now.getTime() - (lifetimeSeconds + PUBLICATION_MARGIN_SECONDS) * 1000).toISOString();
}

/** A new key pair of `alg`: the public JWK and the private key as PKCS #8 PEM. */
async function newKeyPair(alg: JwsAlgorithm, kid: string): Promise<{ jwk: PublicJwk; pem: string }> {
  if (alg === 'RS256') {
    const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 });
    const { n, e } = publicKey.export({ format: 'jwk' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    return { jwk: { kty: 'RSA', n: n!, e: e!, kid, alg, use: 'sig' }, pem };
  }
  const { publicKey, privateKey } = await generate('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return { jwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid, alg: 'EdDSA', use: 'sig' }, pem };
}

const algorithmOf = (publicJwk: string): JwsAlgorithm => (JSON.parse(publicJwk) as PublicJwk).alg;

/**
 * Add a signing key for `alg` (EdDSA unless told): it signs with that algorithm from now on, the
 * key of the same algorithm before it is retired (still published until its last token has
 * expired), and keys retired long ago are removed. The private key is stored sealed (AES-256-GCM,
 * key derived by HKDF from the session secret). Returns its `kid`.
 */
export async function addSigningKey(
  db: Kysely<Database>,
  clock: Clock,
  secrets: SecretBox,
  ttlSeconds: number,
  alg: JwsAlgorithm = 'EdDSA',
): Promise<string> {
  const kid = randomBytes(16).toString('hex');
  const { jwk, pem } = await newKeyPair(alg, kid);
  const now = clock.now();
  await retryOnDeadlock(() =>
    db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('service_token_keys')
        .select(['kid', 'public_jwk'])
        .where('retired_at', 'is', null)
        .execute();
      const sameAlgorithm = current
        .filter((row) => algorithmOf(row.public_jwk) === alg)
        .map((row) => row.kid);
      if (sameAlgorithm.length > 0)
        await trx
          .updateTable('service_token_keys')
          .set({ retired_at: now.toISOString() })
          .where('kid', 'in', sameAlgorithm)
          .execute();
      await trx
        .deleteFrom('service_token_keys')
        .where('retired_at', '<=', publicationCutoff(now, Math.max(ttlSeconds, RETENTION_SECONDS)))
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
  keyGeneration++;
  return kid;
}

/**
 * Rotate the key set: a new EdDSA key, and a new key for every other algorithm that has one in
 * use (RS256 once the OAuth provider has signed). Returns the new `kid`s.
 */
export async function rotateSigningKeys(
  db: Kysely<Database>,
  clock: Clock,
  secrets: SecretBox,
  ttlSeconds: number,
): Promise<string[]> {
  const current = await db
    .selectFrom('service_token_keys')
    .select(['public_jwk'])
    .where('retired_at', 'is', null)
    .execute();
  const algorithms = new Set<JwsAlgorithm>(['EdDSA', ...current.map((row) => algorithmOf(row.public_jwk))]);
  const kids: string[] = [];
  for (const alg of algorithms) kids.push(await addSigningKey(db, clock, secrets, ttlSeconds, alg));
  return kids;
}

/**
 * The signing keys of one server, one per algorithm: the current ones (read again a second after
 * the last read, so a rotation by another process signs within a second, and one by this process
 * at once), and the public keys by `kid`, kept in memory:
 * verifying a token reads the database only for a `kid` it has not seen. A retired key stays
 * published `lifetimeSeconds` (the longest token any plugin signs) past its retirement.
 */
/** A current key's row, as `KeyRing` reads it. */
interface CurrentRow {
  kid: string;
  public_jwk: string;
  private_key_sealed: string;
}

export class KeyRing implements SigningKeySet {
  private readonly privateKeys = new Map<string, SigningKey>();
  private readonly publicKeys = new Map<string, KeyObject>();
  /** The last read of each algorithm's current key: when, and before which key this process added. */
  private readonly current = new Map<JwsAlgorithm, { row: CurrentRow; readAt: number; generation: number }>();
  /** A first key of an algorithm being created: concurrent first mints wait for the same one. */
  private readonly creating = new Map<JwsAlgorithm, Promise<string>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
    private readonly lifetimeSeconds: number | (() => number),
  ) {}

  private get lifetime(): number {
    return typeof this.lifetimeSeconds === 'number' ? this.lifetimeSeconds : this.lifetimeSeconds();
  }

  /** The key that signs with `alg` now; the first mint of an algorithm creates its key. */
  async signingKey(alg: JwsAlgorithm = 'EdDSA'): Promise<SigningKey> {
    let row = await this.currentRow(alg);
    if (!row) {
      let pending = this.creating.get(alg);
      if (!pending) {
        pending = addSigningKey(this.db, this.clock, this.secrets, this.lifetime, alg);
        this.creating.set(alg, pending);
        void pending.finally(() => this.creating.delete(alg)).catch(() => undefined);
      }
      await pending;
      row = await this.currentRow(alg);
      if (!row) throw new Error('no signing key after creating one');
    }
    let key = this.privateKeys.get(row.kid);
    if (!key) {
      const privateKey = createPrivateKey(this.secrets.decrypt(sealPurpose(row.kid), row.private_key_sealed));
      key = { kid: row.kid, alg, privateKey };
      this.privateKeys.set(row.kid, key);
      // Its tokens are verified here too: no read for the key when they come back.
      this.remember(row.kid, createPublicKey(privateKey));
    }
    return key;
  }

  /** The newest unretired key of `alg` (at most one per algorithm is unretired, but for races). */
  private async currentRow(alg: JwsAlgorithm): Promise<CurrentRow | undefined> {
    const now = this.clock.now().getTime();
    const kept = this.current.get(alg);
    if (
      kept &&
      kept.generation === keyGeneration &&
      now >= kept.readAt &&
      now - kept.readAt < CURRENT_KEY_REUSE_MS
    )
      return kept.row;
    // Taken before the read: a key this process adds meanwhile makes the read stale at once.
    const generation = keyGeneration;
    const rows = await this.db
      .selectFrom('service_token_keys')
      .select(['kid', 'public_jwk', 'private_key_sealed'])
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('kid', 'desc')
      .execute();
    const row = rows.find(
      (candidate) => (this.privateKeys.get(candidate.kid)?.alg ?? algorithmOf(candidate.public_jwk)) === alg,
    );
    if (row) this.current.set(alg, { row, readAt: now, generation });
    return row;
  }

  /** The published public keys: the signing keys and the retired ones whose tokens may still be live. */
  async published(): Promise<PublicJwk[]> {
    const rows = await this.db
      .selectFrom('service_token_keys')
      .select(['public_jwk'])
      .where((eb) =>
        eb.or([
          eb('retired_at', 'is', null),
          eb('retired_at', '>', publicationCutoff(this.clock.now(), this.lifetime)),
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
    const cutoff = publicationCutoff(this.clock.now(), this.lifetime);
    if (!row || (row.retired_at !== null && row.retired_at <= cutoff)) return undefined;
    const key = createPublicKey({ key: { ...(JSON.parse(row.public_jwk) as PublicJwk) }, format: 'jwk' });
    this.remember(kid, key);
    return key;
  }

  private remember(kid: string, key: KeyObject): void {
    // Keys are few (one per rotation and algorithm); the bound only guards against surprises.
    if (this.publicKeys.size >= 100) this.publicKeys.clear();
    this.publicKeys.set(kid, key);
  }
}
