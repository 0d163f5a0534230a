import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { TestClient } from '../../support/client.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';
import { sudoWithPassword } from '../../support/factors.ts';

const ORIGIN = 'http://localhost:3000';

describe('passkeys (API, software authenticator)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  async function enroll(client: TestClient, key: SoftAuthenticator, name?: string) {
    const start = await client.post('/two-factor/enroll/start', { factor: 'passkey', name });
    expect(start.status, start.text).toBe(200);
    return client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: key.register(start.body.data.options),
      name,
    });
  }

  async function passkeyLogin(user: UserRecord) {
    const client = t.client();
    const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.action_required');
    const show = await client.get('/action/show');
    expect(show.body.data.action).toBe('two_factor');
    return { client, options: show.body.data.passkey.options };
  }

  it('registration options: RP ID and name from APP_URL, user verification preferred, sudo required', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    expect((await client.post('/two-factor/enroll/start', { factor: 'passkey' })).status).toBe(403);
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(start.body.action).toBe('two_factor.enroll.start');
    const { factor, options } = start.body.data;
    expect(factor).toBe('passkey');
    expect(options.rp).toEqual({ id: 'localhost', name: 'Citadel' });
    expect(options.authenticatorSelection.userVerification).toBe('preferred');
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    // The username (shown in passkey pickers), never the email or the id.
    expect(options.user.name).toBe(user.username);
    expect(options.authenticatorSelection.residentKey).toBe('required');
    expect(Buffer.from(options.user.id, 'base64url').toString()).not.toContain(String(user.id));
  });

  it('enrolls several named passkeys; only the first brings recovery codes; wrong proofs enroll nothing', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);

    // Wrong origin, then a response for a challenge that was already used: 422, nothing stored.
    const evil = new SoftAuthenticator(ORIGIN);
    const start = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    const forged = await client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: evil.register(start.body.data.options, 'http://evil.example'),
    });
    expect(forged.status).toBe(422);
    expect(forged.body.errors.proof).toBeTruthy();
    const reuse = await client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: evil.register(start.body.data.options),
    });
    expect(reuse.status).toBe(422);
    expect(
      await client.post('/two-factor/enroll/confirm', { factor: 'passkey', proof: 'not json' }),
    ).toMatchObject({ status: 422 });
    expect((await client.get('/two-factor')).body.data.enrolled_factors).toEqual([]);

    const laptop = new SoftAuthenticator(ORIGIN);
    const first = await enroll(client, laptop, 'Laptop');
    expect(first.status, first.text).toBe(200);
    expect(first.body.message).toMatch(/passkey/i);
    expect(first.body.data.recovery_codes).toHaveLength(10);

    const phone = new SoftAuthenticator(ORIGIN);
    const start2 = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(start2.body.data.options.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([laptop.id]);
    const second = await client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: phone.register(start2.body.data.options),
      name: 'Phone',
    });
    expect(second.status).toBe(200);
    expect(second.body.data.recovery_codes).toBeUndefined();
    const index = await client.get('/two-factor');
    expect(index.body.data.enrolled_factors).toEqual(['passkey']);
    expect(index.body.data.recovery_codes_remaining).toBe(10);
    expect(index.body.data.passkeys.map((p: { name: string }) => p.name)).toEqual(['Laptop', 'Phone']);

    // The same authenticator cannot be registered twice.
    const dup = await enroll(client, laptop);
    expect(dup.status).toBe(422);
  });

  it('signs in as second factor; replayed, cloned (counter not increasing) and foreign assertions fail', async () => {
    const user = await t.createUser();
    const owner = await t.signIn(user);
    await sudoWithPassword(owner);
    const key = new SoftAuthenticator(ORIGIN);
    expect((await enroll(owner, key)).status).toBe(200);

    const { client, options } = await passkeyLogin(user);
    expect(options.rpId).toBe('localhost');
    expect(options.userVerification).toBe('preferred');
    expect(options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([key.id]);
    const assertion = key.assert(options);
    const ok = await client.post('/action/handle', { factor: 'passkey', proof: assertion });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.action).toBe('action.success');
    const row = await t.services.db
      .selectFrom('passkeys')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.counter)).toBe(key.counter);

    // The same assertion again, in a new sign-in: its challenge is not this one.
    const again = await passkeyLogin(user);
    expect((await again.client.post('/action/handle', { factor: 'passkey', proof: assertion })).status).toBe(
      404,
    );

    // A clone: signs a fresh challenge but with a counter that did not move up.
    const clone = await passkeyLogin(user);
    key.counter -= 1;
    expect(
      (await clone.client.post('/action/handle', { factor: 'passkey', proof: key.assert(clone.options) }))
        .status,
    ).toBe(404);

    // Someone else's registered key, on this user's challenge.
    const other = await t.createUser();
    const otherClient = await t.signIn(other);
    await sudoWithPassword(otherClient);
    const otherKey = new SoftAuthenticator(ORIGIN);
    await enroll(otherClient, otherKey);
    const foreign = await passkeyLogin(user);
    expect(
      (
        await foreign.client.post('/action/handle', {
          factor: 'passkey',
          proof: otherKey.assert(foreign.options),
        })
      ).status,
    ).toBe(404);

    // Wrong origin.
    const wrongOrigin = await passkeyLogin(user);
    expect(
      (
        await wrongOrigin.client.post('/action/handle', {
          factor: 'passkey',
          proof: key.assert(wrongOrigin.options, 'http://evil.example'),
        })
      ).status,
    ).toBe(404);
  });

  it('sudo with a passkey: POST /sudo/challenge gives request options; one challenge, one attempt', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const key = new SoftAuthenticator(ORIGIN);
    await enroll(client, key);
    await client.post('/sudo/exit');

    const challenge = await client.post('/sudo/challenge', { factor: 'passkey' });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toMatchObject({
      action: 'sudo.challenge',
      status: 'info',
      data: { factor: 'passkey' },
    });
    const options = challenge.body.data.options;
    const bad = await client.post('/sudo/verify', {
      factor: 'passkey',
      proof: key.assert(options, 'http://evil.example'),
    });
    expect(bad.status).toBe(422);
    // The challenge is spent by the failed attempt.
    expect(
      (await client.post('/sudo/verify', { factor: 'passkey', proof: key.assert(options) })).status,
    ).toBe(422);

    const fresh = (await client.post('/sudo/challenge', { factor: 'passkey' })).body.data.options;
    const ok = await client.post('/sudo/verify', {
      factor: 'passkey',
      proof: JSON.stringify(key.assert(fresh)),
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.action).toBe('sudo.verified');
    expect((await client.get('/sudo')).body.data.active).toBe(true);

    const passwordChallenge = await client.post('/sudo/challenge', { factor: 'password' });
    expect(passwordChallenge.body.data).toEqual({ factor: 'password' });
    expect((await client.post('/sudo/challenge', { factor: 'totp' })).status).toBe(422);
  });

  it('unenroll: one key by credential_id, unknown id 404, then all; recovery codes go with the last factor', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const a = new SoftAuthenticator(ORIGIN);
    const b = new SoftAuthenticator(ORIGIN);
    const c = new SoftAuthenticator(ORIGIN);
    await enroll(client, a, 'A');
    await enroll(client, b, 'B');
    await enroll(client, c, 'C');

    const one = await client.post('/two-factor/unenroll', { factor: 'passkey', credential_id: b.id });
    expect(one.status).toBe(200);
    expect(one.body.data.passkeys.map((p: { name: string }) => p.name)).toEqual(['A', 'C']);
    expect(
      (await client.post('/two-factor/unenroll', { factor: 'passkey', credential_id: b.id })).status,
    ).toBe(404);
    expect((await client.get('/two-factor')).body.data.recovery_codes_remaining).toBe(10);

    const all = await client.post('/two-factor/unenroll', { factor: 'passkey' });
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ enrolled_factors: [], passkeys: [], recovery_codes_remaining: 0 });
    expect((await client.post('/two-factor/unenroll', { factor: 'passkey' })).status).toBe(404);
    await t.signIn(user); // no second step any more
  });
});
