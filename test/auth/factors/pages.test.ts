import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { enrollTotp, nextStep, startLogin, totpCode } from '../../support/factors.ts';

/** A <script> without src: the CSP (script-src 'self') would block it, so there must be none. */
const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>/i;

describe('two-factor and sudo pages (form clients)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('settings page: set up TOTP with the QR code, a wrong code re-asks, recovery codes are shown once', async () => {
    const client = await t.signIn(await t.createUser());
    const page = await client.get('/two-factor', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Set up authenticator app');
    expect(page.text).toContain('id="passkey-register"');
    expect(page.text).toContain('<script src="/assets/passkeys.js"');
    expect(page.text).not.toMatch(INLINE_SCRIPT);

    // Not elevated: sent to the sudo page, then back to the settings page.
    const refused = await client.post('/two-factor/enroll/start', { factor: 'totp' }, 'form', {
      headers: { referer: 'http://localhost:3000/two-factor' },
    });
    expect(refused.status).toBe(303);
    expect(refused.location).toBe('/sudo?next=%2Ftwo-factor');
    const verified = await client.post(
      '/sudo/verify',
      { factor: 'password', proof: TEST_PASSWORD, next: '/two-factor' },
      'form',
    );
    expect(verified.location).toBe('/two-factor');

    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' }, 'form');
    expect(start.status).toBe(200);
    expect(start.text).toMatch(/<img\s+id="totp-qr"\s+class="qr"\s+src="data:image\/svg\+xml;base64,/);
    const secret = /<code class="secret" id="totp-secret">([A-Z2-7]{32})<\/code>/.exec(start.text)![1]!;
    expect(start.text).toContain('action="/two-factor/enroll/confirm"');

    const code = totpCode(t, secret);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const bad = await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: wrong }, 'form');
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('That proof was not accepted');
    expect(bad.text).toContain('action="/two-factor/enroll/confirm"');
    expect(bad.text).not.toContain(`value="${wrong}"`);

    // Post/Redirect/Get: the confirmation answers 303 to the settings page, which shows the codes once.
    const done = await client.post('/two-factor/enroll/confirm', { factor: 'totp', proof: code }, 'form');
    expect(done.status).toBe(303);
    expect(done.location).toBe('/two-factor');
    const shown = await client.get('/two-factor', 'form');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Authenticator app enabled.');
    const codes = [...shown.text.matchAll(/<code class="recovery-code">([a-z0-9-]+)<\/code>/g)].map(
      (m) => m[1],
    );
    expect(codes).toHaveLength(10);
    const after = await client.get('/two-factor', 'form');
    expect(after.text).not.toContain(codes[0]!);
    expect(after.text).toContain('<span id="recovery-remaining">10</span>');
    expect(after.text).toContain('Remove authenticator app');
  });

  it('the two_factor sign-in step page has the code form; a form sign-in with the code lands on /', async () => {
    const user = await t.createUser();
    const { secret } = await enrollTotp(t, await t.signIn(user));
    nextStep(t);
    const client = await startLogin(t, user);
    const page = await client.get('/action/show', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<option value="totp">');
    expect(page.text).toContain('<option value="recovery_code">');
    expect(page.text).toContain('name="proof"');
    expect(page.text).not.toContain('data-passkey-auth');
    expect(page.text).not.toMatch(INLINE_SCRIPT);
    const done = await client.post('/action/handle', { factor: 'totp', proof: totpCode(t, secret) }, 'form');
    expect(done.status).toBe(303);
    expect(done.location).toBe('/');
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });

  it('the sudo page has one form per factor the user has', async () => {
    const plain = await t.signIn(await t.createUser());
    const onlyPassword = await plain.get('/sudo', 'form');
    expect(onlyPassword.text).toContain('id="sudo-password"');
    expect(onlyPassword.text).not.toContain('id="sudo-totp"');
    expect(onlyPassword.text).not.toContain('id="sudo-recovery"');
    expect(onlyPassword.text).not.toContain('id="sudo-passkey"');

    const client = await t.signIn(await t.createUser());
    await enrollTotp(t, client);
    await client.post('/sudo/exit');
    const page = await client.get('/sudo?next=%2Ftokens', 'form');
    for (const id of ['sudo-password', 'sudo-totp', 'sudo-recovery'])
      expect(page.text).toContain(`id="${id}"`);
    expect(page.text).toContain('name="next" value="/tokens"');
    expect(page.text).not.toMatch(INLINE_SCRIPT);

    // Already elevated: no forms, a way on to the target and a way out.
    await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    const active = await client.get('/sudo?next=%2Ftokens', 'form');
    expect(active.text).toContain('id="sudo-active"');
    expect(active.text).toMatch(/<a\s+class="button"\s+id="sudo-continue"\s+href="\/tokens"/);
    expect(active.text).toContain('action="/sudo/exit"');
    expect(active.text).not.toContain('id="sudo-password"');
  });

  it('serves the browser scripts from our origin', async () => {
    const library = await t.client().get('/assets/simplewebauthn.js', 'form');
    expect(library.status).toBe(200);
    expect(String(library.headers['content-type'])).toContain('javascript');
    expect(library.text).toContain('SimpleWebAuthnBrowser');
    const glue = await t.client().get('/assets/passkeys.js', 'form');
    expect(glue.status).toBe(200);
    expect(glue.text).toContain('startRegistration');
  });
});
