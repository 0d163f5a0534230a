import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { sudoWithPassword } from '../factors/helpers.ts';

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
