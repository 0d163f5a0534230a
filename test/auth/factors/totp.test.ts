import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { enrollTotp, nextStep, startLogin, sudoWithPassword, totpCode } from '../../support/factors.ts';

describe('TOTP two-factor', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('enrollment needs sudo, returns a 160-bit Base32 secret, an otpauth URI with issuer and a QR image', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const before = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    expect(before.status).toBe(403);
    expect(before.body).toMatchObject({
      action: 'sudo.required',
      redirect_to: '/sudo',
      data: { factors: ['password'] },
    });

    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    expect(start.status).toBe(200);
    expect(start.body.action).toBe('two_factor.enroll.start');
    const { secret, qr_uri: uri, qr_image: image, factor } = start.body.data;
    expect(factor).toBe('totp');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 32 Base32 characters = 160 bits
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.host).toBe('totp');
    expect(decodeURIComponent(parsed.pathname)).toBe(`/Citadel:${user.email}`);
    expect(parsed.searchParams.get('issuer')).toBe('Citadel');
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(parsed.searchParams.get('digits')).toBe('6');
    expect(parsed.searchParams.get('period')).toBe('30');
    expect(parsed.searchParams.get('algorithm')).toBe('SHA1');
    // The pending secret is in the session only encrypted.
    const { sha256Hex } = await import('../../../src/core/crypto.ts');
    const session = await t.services.sessions.load(sha256Hex(client.cookie('citadel_session')!));
    expect(JSON.stringify(session)).not.toContain(secret);
    expect(JSON.stringify(session)).toContain('enroll:totp');
    expect(image).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(image.split(',')[1], 'base64').toString()).toContain('<svg');
  });

  it('a wrong code at confirm is 422 errors.proof and enrolls nothing', async () => {
    const client = await t.signIn(await t.createUser());
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    const good = totpCode(t, secret);
    const wrong = String((Number(good) + 1) % 1_000_000).padStart(6, '0');
    const confirm = await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: wrong });
    expect(confirm.status).toBe(422);
    expect(confirm.body.errors.proof).toBeTruthy();
    const index = await client.get('/two-factor');
    expect(index.body.data.enrolled_factors).toEqual([]);
    expect(index.body.data.recovery_codes_remaining).toBe(0);
    // A code of the wrong secret, too.
    const other = await client.post('/two-factor/enroll/confirm', {
      factor: 'totp',
      proof: totpCode(t, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'),
    });
    expect(other.status).toBe(422);
    expect((await client.get('/two-factor')).body.data.enrolled_factors).toEqual([]);
  });

  it('confirming enrolls, names the factor, returns 10 recovery codes once; the secret is encrypted at rest', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    const confirm = await client.post('/two-factor/enroll/confirm', {
      factor: 'totp',
      proof: totpCode(t, secret),
    });
    expect(confirm.status).toBe(200);
    expect(confirm.body.action).toBe('two_factor.enroll.confirm');
    expect(confirm.body.message).toMatch(/authenticator app/i);
    const codes = confirm.body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    const index = await client.get('/two-factor');
    expect(index.body).toMatchObject({
      action: 'two_factor.index',
      data: {
        enrolled_factors: ['totp'],
        available_factors: [
          { id: 'totp', label: 'Authenticator app' },
          { id: 'passkey', label: 'Passkey' },
        ],
        recovery_codes_remaining: 10,
      },
    });
    expect(index.text).not.toContain(codes[0]);
    expect(index.text).not.toContain(secret);

    const row = await t.services.db
      .selectFrom('totp_factors')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_encrypted).not.toContain(secret);
    expect(t.services.secrets.decrypt('totp', row.secret_encrypted)).toBe(secret);
    const stored = await t.services.db
      .selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(stored).toHaveLength(10);
    for (const { code_hash } of stored)
      for (const code of codes) expect(code_hash).not.toContain(code.replace('-', ''));

    // Enrolling again while enrolled is refused.
    const again = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    expect(again.status).toBe(409);
  });

  it('sign-in asks for the code; the same code twice and a code two steps old are rejected', async () => {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    nextStep(t);

    const first = await startLogin(t, user);
    const code = totpCode(t, secret);
    const ok = await first.post('/action/handle', { code });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.action).toBe('action.success');
    expect((await first.get('/me')).body.user.id).toBe(user.id);

    // Replay of the same code (same time step) in a new sign-in.
    const replay = await startLogin(t, user);
    const replayed = await replay.post('/action/handle', { factor: 'totp', proof: code });
    expect(replayed.status).toBe(404);
    expect((await replay.get('/me')).status).toBe(401);

    // Two steps old is outside the ±1 window, even though never used.
    t.clock.advance(60);
    const stale = await replay.post('/action/handle', { factor: 'totp', proof: totpCode(t, secret, -2) });
    expect(stale.status).toBe(404);
    // One step old and unused is inside the window.
    const drift = await replay.post('/action/handle', { factor: 'totp', proof: totpCode(t, secret, -1) });
    expect(drift.status, drift.text).toBe(200);
    expect(drift.body.action).toBe('action.success');
    // And after using a step, an earlier unused step is no longer accepted either.
    nextStep(t);
    const later = await startLogin(t, user);
    expect((await later.post('/action/handle', { code: totpCode(t, secret) })).status).toBe(200);
    const earlier = await startLogin(t, user);
    expect((await earlier.post('/action/handle', { code: totpCode(t, secret, -1) })).status).toBe(404);
  });

  it('magic-link sign-in asks for the enrolled factor too', async () => {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    nextStep(t);
    const client = t.client();
    const prefix = 'http://localhost:3000/magic-link/verify/';
    // Only sign-in links count: the enrollment notice may arrive meanwhile.
    const isLink = (m: { text: string }) => m.text.includes(prefix);
    const count = t.mail.to(user.email).filter(isLink).length + 1;
    expect((await client.post('/magic-link', { email: user.email })).status).toBe(200);
    const mail = await t.mail.waitFor(user.email, { count, match: isLink });
    const { linkIn } = await import('../../support/mail.ts');
    const token = linkIn(mail, prefix).slice(prefix.length);
    const verify = await client.get(`/magic-link/verify/${token}`);
    expect(verify.status, verify.text).toBe(200);
    expect(verify.body.redirect_to).toBe('/action/show');
    expect(verify.body.user).toBeUndefined();
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/action/show')).body.data.action).toBe('two_factor');
    const done = await client.post('/action/handle', { code: totpCode(t, secret) });
    expect(done.body.action).toBe('action.success');
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });

  it('unenrolling removes the factor and its recovery codes; sign-in no longer asks; a second unenroll is 404', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await enrollTotp(t, client);
    // Removal needs step-up like enrollment.
    await client.post('/sudo/exit');
    const refused = await client.post('/two-factor/unenroll', { factor: 'totp' });
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('sudo.required');
    expect(refused.body.data.factors).toEqual(['password', 'totp', 'recovery_code']);
    await sudoWithPassword(client);
    const removed = await client.post('/two-factor/unenroll', { factor: 'totp' });
    expect(removed.status).toBe(200);
    expect(removed.body.action).toBe('two_factor.unenroll');
    const index = await client.get('/two-factor');
    expect(index.body.data.enrolled_factors).toEqual([]);
    expect(index.body.data.recovery_codes_remaining).toBe(0);
    expect((await client.post('/two-factor/unenroll', { factor: 'totp' })).status).toBe(404);
    expect((await client.post('/two-factor/unenroll', { factor: 'passkey' })).status).toBe(404);
    await t.signIn(user); // plain login.attempt again
  });

  it('enrollment endpoints are for signed-in sessions: 401 without one', async () => {
    const client = t.client();
    expect((await client.get('/two-factor')).status).toBe(401);
    expect((await client.post('/two-factor/enroll/start', { factor: 'totp' })).status).toBe(401);
    expect(
      (await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: '123456' })).status,
    ).toBe(401);
    expect((await client.post('/two-factor/unenroll', { factor: 'totp' })).status).toBe(401);
  });

  it('wrong codes at confirm are limited: the sixth attempt in the window is 429', async () => {
    const client = await t.signIn(await t.createUser());
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    const good = totpCode(t, secret);
    const wrong = String((Number(good) + 500_000) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i += 1)
      expect((await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: wrong })).status).toBe(
        422,
      );
    const sixth = await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: good });
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBeTruthy();
    expect((await client.get('/two-factor')).body.data.enrolled_factors).toEqual([]);
  });
});
