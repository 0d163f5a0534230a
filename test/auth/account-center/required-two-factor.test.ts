import { factorsOptions } from '../../../src/auth/factors/options.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { totpCode } from '../../support/factors.ts';
import { SoftAuthenticator } from '../../support/soft-authenticator.ts';
import { eventTypes } from '../../support/security-events.ts';

describe('REQUIRE_TWO_FACTOR=1: the two_factor_enroll action', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { REQUIRE_TWO_FACTOR: '1' } });
  });
  afterAll(async () => t?.close());

  async function startSignIn(email: string) {
    const client = t.client();
    const login = await client.post('/login', { email, password: TEST_PASSWORD });
    expect(login.body).toMatchObject({ action: 'login.action_required', redirect_to: '/action/show' });
    const show = await client.get('/action/show');
    expect(show.body.data.action).toBe('two_factor_enroll');
    return { client, show };
  }

  it('a user without a factor cannot finish signing in before enrolling TOTP and seeing recovery codes', async () => {
    expect(factorsOptions(t.services).requireTwoFactor).toBe(true);
    const user = await t.createUser();
    const { client, show } = await startSignIn(user.email);
    const secret = show.body.data.totp.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(show.body.data.passkey.options.challenge).toBeTruthy();
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/two-factor')).status).toBe(401);

    const wrong = await client.post('/action/handle', { factor: 'totp', code: totpCode(t, secret, 5) });
    expect(wrong.status).toBe(404);
    expect((await client.get('/me')).status).toBe(401);

    const enrolled = await client.post('/action/handle', { factor: 'totp', code: totpCode(t, secret) });
    expect(enrolled.body).toMatchObject({
      action: 'action.next',
      data: { action: 'two_factor_recovery_codes' },
    });
    expect((await client.get('/me')).status).toBe(401);
    const codes = (await client.get('/action/show')).body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect((await client.post('/action/handle', {})).status).toBe(422);
    const done = await client.post('/action/handle', { acknowledged: true });
    expect(done.body).toMatchObject({ action: 'action.success', user: { id: user.id } });
    expect((await client.get('/me')).status).toBe(200);
    expect(await eventTypes(t, user.id)).toEqual(expect.arrayContaining(['factor_enrolled', 'sign_in']));
    // The session data never held the codes or the secret in plain text.
    const rows = await t.services.db.selectFrom('sessions').select('data').execute();
    for (const row of rows) {
      expect(row.data).not.toContain(secret);
      for (const code of codes) expect(row.data).not.toContain(code);
    }

    // The next sign-in asks for the factor, not for another enrollment.
    const next = t.client();
    await next.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect((await next.get('/action/show')).body.data.action).toBe('two_factor');
  });

  it('a passkey enrolls too', async () => {
    const user = await t.createUser();
    const { client, show } = await startSignIn(user.email);
    const key = new SoftAuthenticator('http://localhost:3000');
    const enrolled = await client.post('/action/handle', {
      factor: 'passkey',
      proof: key.register(show.body.data.passkey.options),
    });
    expect(enrolled.body.data.action).toBe('two_factor_recovery_codes');
    expect((await client.post('/action/handle', { acknowledged: '1' })).body.action).toBe('action.success');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('cancelling leaves the user signed out; form clients see a QR code and a code field', async () => {
    const user = await t.createUser();
    const { client } = await startSignIn(user.email);
    const page = await client.get('/action/show', 'form');
    expect(page.text).toContain('Set up two-factor authentication');
    expect(page.text).toMatch(/<img\s+class="qr"\s+src="data:image\/svg\+xml;base64,/);
    expect(page.text).toContain('name="code"');
    await client.post('/action/cancel');
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/action/show')).status).toBe(401);
  });

  it('without REQUIRE_TWO_FACTOR nothing is asked', async () => {
    const plain = await startTestApp({ sharedDatabase: t.database, sharedMail: t.mail });
    try {
      const user = await plain.createUser();
      const login = await plain.client().post('/login', { email: user.email, password: TEST_PASSWORD });
      expect(login.body.action).toBe('login.attempt');
    } finally {
      await plain.close();
    }
  });
});
