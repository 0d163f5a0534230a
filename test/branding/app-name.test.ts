import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { sudoWithPassword } from '../support/factors.ts';

describe('branding: APP_NAME and stylesheet', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { APP_NAME: 'Acme Books' },
      stylesheet: 'https://cdn.acme.test/brand.css',
    });
  });
  afterAll(async () => t?.close());

  it('names the page title and header, and loads the stylesheet (allowed by the CSP)', async () => {
    const page = await t.client().get('/login', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Sign in · Acme Books</title>');
    expect(page.text).toContain('<a class="brand" href="/">Acme Books</a>');
    expect(page.text).toContain('<link rel="stylesheet" href="https://cdn.acme.test/brand.css" />');
    expect(page.text).not.toContain('Citadel');
    expect(page.headers['content-security-policy']).toContain('https://cdn.acme.test');
  });

  it("names every email's subject and body (account mails and security notices)", async () => {
    const user = await t.createUser({ emailVerified: true });
    expect((await t.client().post('/forgot-password', { email: user.email })).status).toBe(200);
    await t.mail.waitFor(user.email, { count: 1, match: (m) => /reset your password/i.test(m.subject) });
    expect((await t.client().post('/magic-link', { email: user.email })).status).toBe(200);
    await t.mail.waitFor(user.email, { count: 1, match: (m) => /sign-in link/i.test(m.subject) });
    // A security notice: creating an access token.
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const token = await client.post('/tokens', { name: 'ci', abilities: ['*'] });
    expect(token.status, token.text).toBeLessThan(300);
    await t.mail.waitFor(user.email, { count: 1, match: (m) => /access token/i.test(m.subject) });

    const mails = t.mail.to(user.email);
    expect(mails.map((m) => m.subject)).toEqual(
      expect.arrayContaining([
        'Acme Books: Reset your password',
        'Acme Books: Your sign-in link',
        'Acme Books: A personal access token was created',
      ]),
    );
    for (const mail of mails) {
      expect(mail.subject).toMatch(/^Acme Books: /);
      // MAIL_FROM is unset: the sender's name is APP_NAME too.
      expect(mail.from).toContain('Acme Books');
      expect(mail.text).toContain('This message was sent by Acme Books.');
      expect(mail.html).toContain('This message was sent by Acme Books.');
      expect(`${mail.subject}${mail.text}${mail.html}`).not.toContain('Citadel');
    }
  });

  it('is the TOTP issuer and the WebAuthn relying-party name', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await sudoWithPassword(client);
    const totp = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const uri = new URL(totp.body.data.qr_uri);
    expect(uri.searchParams.get('issuer')).toBe('Acme Books');
    const passkey = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(passkey.body.data.options.rp.name).toBe('Acme Books');
  });
});

describe('an APP_NAME that needs quoting as a sender name', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ appName: 'Acme, "Books"' });
  });
  afterAll(async () => t?.close());

  it('is one quoted display name in the default sender, and the subject prefix', async () => {
    expect(t.server.config.mailFrom).toBe('"Acme, \\"Books\\"" <no-reply@localhost>');
    const user = await t.createUser();
    await t.client().post('/forgot-password', { email: user.email });
    const mail = await t.mail.waitFor(user.email, { count: 1, match: (m) => /reset/i.test(m.subject) });
    expect(mail.subject).toBe('Acme, "Books": Reset your password');
    expect(mail.from).toContain('no-reply@localhost');
    expect(mail.from).toContain('Acme, \\"Books\\"');
  });
});
