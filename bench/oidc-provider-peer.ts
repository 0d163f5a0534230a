/**
 * The benchmark peer of the OAuth token endpoint: panva's `oidc-provider` on loopback, with an
 * adapter over SQLite (better-sqlite3, a file in WAL mode, as Citadel's SQLite store) so both sides
 * keep codes, grants and refresh tokens in the same storage class. Same work as Citadel's:
 * confidential client (client_secret_basic), PKCE S256, RS256 ID tokens and RS256 JWT access
 * tokens for one resource, refresh tokens rotated on every use.
 */
import { createServer, type Server } from 'node:http';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

/** One table for every model, as oidc-provider's own adapter examples keep them. */
class SqliteAdapter implements Adapter {
  constructor(
    private readonly db: Database.Database,
    private readonly model: string,
  ) {}

  static open(file: string): Database.Database {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE IF NOT EXISTS oidc (
      model TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, grant_id TEXT, user_code TEXT,
      uid TEXT, expires_at INTEGER, consumed_at INTEGER, PRIMARY KEY (model, id))`);
    db.exec('CREATE INDEX IF NOT EXISTS oidc_grant ON oidc (grant_id)');
    db.exec('CREATE INDEX IF NOT EXISTS oidc_uid ON oidc (model, uid)');
    db.exec('CREATE INDEX IF NOT EXISTS oidc_user_code ON oidc (model, user_code)');
    return db;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO oidc (model, id, payload, grant_id, user_code, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, expires_at = excluded.expires_at`,
      )
      .run(
        this.model,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.userCode ?? null,
        payload.uid ?? null,
        expiresIn ? Date.now() + expiresIn * 1000 : null,
      );
  }

  private row(where: string, value: string): AdapterPayload | undefined {
    const found = this.db
      .prepare(`SELECT payload, expires_at, consumed_at FROM oidc WHERE model = ? AND ${where} = ?`)
      .get(this.model, value) as
      { payload: string; expires_at: number | null; consumed_at: number | null } | undefined;
    if (!found || (found.expires_at !== null && found.expires_at < Date.now())) return undefined;
    const payload = JSON.parse(found.payload) as AdapterPayload;
    return found.consumed_at === null ? payload : { ...payload, consumed: found.consumed_at };
  }

  async find(id: string) {
    return this.row('id', id);
  }
  async findByUid(uid: string) {
    return this.row('uid', uid);
  }
  async findByUserCode(userCode: string) {
    return this.row('user_code', userCode);
  }
  async consume(id: string): Promise<void> {
    this.db
      .prepare('UPDATE oidc SET consumed_at = ? WHERE model = ? AND id = ?')
      .run(Math.floor(Date.now() / 1000), this.model, id);
  }
  async destroy(id: string): Promise<void> {
    this.db.prepare('DELETE FROM oidc WHERE model = ? AND id = ?').run(this.model, id);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    this.db.prepare('DELETE FROM oidc WHERE grant_id = ?').run(grantId);
  }
}

export interface OidcProviderPeer {
  tokenUrl: string;
  /** `Authorization: Basic …` of the confidential client. */
  basic: string;
  redirectUri: string;
  codeVerifier: string;
  /** `count` authorization codes (S256 of `codeVerifier`), each on its own grant. */
  codes(count: number): Promise<string[]>;
  /** `count` refresh tokens, each on its own grant. */
  refreshTokens(count: number): Promise<string[]>;
  close(): Promise<void>;
}

export async function startOidcProviderPeer(
  databaseFile: string,
  resource: string,
): Promise<OidcProviderPeer> {
  const db = SqliteAdapter.open(databaseFile);
  const clientId = 'bench-client';
  const clientSecret = randomBytes(32).toString('base64url');
  const redirectUri = 'https://bench.example/callback';
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const scope = 'openid offline_access posts:read';

  const provider = new Provider(issuer, {
    adapter: (name: string) => new SqliteAdapter(db, name),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'RS256',
      },
    ],
    jwks: { keys: [jwk as never] },
    scopes: ['openid', 'offline_access', 'posts:read'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'posts:read',
          audience: resource,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 3600,
      IdToken: 600,
      RefreshToken: 30 * 24 * 3600,
      Grant: 30 * 24 * 3600,
    },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  });
  server.on('request', provider.callback());

  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const newGrant = async (accountId: string) => {
    const grant = new provider.Grant({ accountId, clientId });
    grant.addOIDCScope('openid offline_access');
    grant.addResourceScope(resource, 'posts:read');
    return grant.save();
  };
  let account = 0;
  return {
    tokenUrl: `${issuer}/token`,
    basic: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    redirectUri,
    codeVerifier,
    async codes(count) {
      const values: string[] = [];
      for (let i = 0; i < count; i++) {
        const accountId = String(++account);
        const grantId = await newGrant(accountId);
        const code = new provider.AuthorizationCode({
          accountId,
          clientId,
          grantId,
          scope,
          resource,
          redirectUri,
          codeChallenge,
          codeChallengeMethod: 'S256',
          authTime: Math.floor(Date.now() / 1000),
        } as never);
        values.push(await code.save());
      }
      return values;
    },
    async refreshTokens(count) {
      const values: string[] = [];
      for (let i = 0; i < count; i++) {
        const accountId = String(++account);
        const grantId = await newGrant(accountId);
        const token = new provider.RefreshToken({
          accountId,
          clientId,
          grantId,
          scope,
          resource,
          gty: 'authorization_code',
          authTime: Math.floor(Date.now() / 1000),
          iiat: Math.floor(Date.now() / 1000),
          rotations: 0,
        } as never);
        values.push(await token.save());
      }
      return values;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}
