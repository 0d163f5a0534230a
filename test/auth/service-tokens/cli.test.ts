/**
 * `citadel keys:rotate` and `citadel admin:grant <email>` (contract section 18), run as a user
 * runs them (the package's bin in a fresh folder) against a server's database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_SECRET, type TestApp } from '../../support/app.ts';
import { runCitadel } from '../../support/citadel-cli.ts';

describe('citadel keys:rotate and admin:grant', () => {
  let t: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await startTestApp();
    env = { DATABASE_URL: t.database.url, SESSION_SECRET: TEST_SECRET };
  });
  afterAll(async () => t?.close());

  const kidOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

  it('keys:rotate: the next token is signed by the new key, the old token keeps working', async () => {
    const user = await t.createUser();
    const session = await t.signIn(user);
    const before = (await session.post('/token', {})).body.access_token as string;
    const run = await runCitadel(['keys:rotate'], env);
    expect(run.code, run.stderr).toBe(0);
    const kid = /signing key ([0-9a-f]{32}) added/.exec(run.stdout)?.[1];
    expect(kid).toBeDefined();
    // Within a second of its last read, this server still signs with the key it read; then the new one.
    const within = (await session.post('/token', {})).body.access_token as string;
    expect(kidOf(within)).toBe(kidOf(before));
    t.clock.advance(1);
    const after = (await session.post('/token', {})).body.access_token as string;
    expect(kidOf(after)).toBe(kid);
    expect(kidOf(before)).not.toBe(kid);
    const keys = (await t.client().get('/.well-known/jwks.json')).body.keys as { kid: string }[];
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([kid, kidOf(before)]));
    for (const token of [before, after])
      expect((await t.client().get('/me', 'json', { token })).status).toBe(200);
    // The key was sealed with the server's secret: this server can sign with it.
    const row = await t.services.db
      .selectFrom('service_token_keys')
      .select('private_key_sealed')
      .where('kid', '=', kid!)
      .executeTakeFirstOrThrow();
    expect(t.services.secrets.decrypt(`service-token-key:${kid}`, row.private_key_sealed)).toContain(
      'PRIVATE KEY',
    );
  }, 60_000);

  it('admin:grant gives the role; an unknown address exits 1 with one line', async () => {
    const user = await t.createUser();
    expect(user.role).toBe('user');
    const run = await runCitadel(['admin:grant', user.email.toUpperCase()], env);
    expect(run.code, run.stderr).toBe(0);
    expect((await t.services.users.findById(user.id))!.role).toBe('admin');
    const unknown = await runCitadel(['admin:grant', 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('no account with the email');
  }, 90_000);
});
