import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { linkIn } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';

/** Each rough edge of issue 11, checked on the HTML a form client gets. */
describe('page rough edges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: [] });
  });
  afterAll(async () => t?.close());

  const count = (text: string, needle: string) => text.split(needle).length - 1;

  it('a bad sign-in says so once, with no generic banner', async () => {
    const user = await t.createUser();
    const page = await t.client().post('/login', { email: user.email, password: 'wrong password' }, 'form');
    expect(page.status).toBe(401);
    expect(count(page.text, 'The email, username or password is incorrect.')).toBe(1);
    expect(page.text).not.toContain('Invalid credentials.');
  });

  it('register states its rules, shows every error at once, never "Validation failed."', async () => {
    const page = await t
      .client()
      .post(
        '/register',
        { username: 'a', email: 'not-an-email', password: 'short', password_confirm: 'different' },
        'form',
      );
    expect(page.status).toBe(422);
    expect(page.text).toContain('3 to 30 letters, digits and spaces.');
    expect(page.text).toMatch(/8 to 256 characters/);
    expect(page.text).toContain('Password confirmation does not match.');
    expect(page.text).toMatch(/id="field-username-error"/);
    expect(page.text).toMatch(/id="field-email-error"/);
    expect(page.text).toMatch(/id="field-password-error"/);
    expect(page.text).not.toContain('Validation failed.');
    expect(page.text).toContain('aria-invalid="true"');
  });

  it('the home page title is not doubled; pages ask for no favicon; the header links the account pages', async () => {
    const home = await t.client().get('/', 'form');
    expect(home.text).toContain('<title>Citadel</title>');
    expect(home.text).toContain('<link rel="icon" href="data:," />');
    const user = await t.createUser();
    const client = await t.signIn(user);
    const page = await client.get('/', 'form');
    for (const href of ['/account', '/sessions', '/two-factor', '/tokens'])
      expect(page.text).toContain(`href="${href}"`);
  });

  it('a used sign-in link offers a new one', async () => {
    const user = await t.createUser();
    await t.client().post('/magic-link', { email: user.email });
    const link = linkIn(
      await t.mail.waitFor(user.email, { count: 1 }),
      'http://localhost:3000/magic-link/verify/',
    );
    const path = new URL(link).pathname;
    await t.client().get(path, 'form');
    const dead = await t.client().get(path, 'form');
    expect(dead.status).toBe(404);
    expect(dead.text).toContain('This sign-in link no longer works');
    expect(dead.text).toContain('href="/magic-link"');
  });

  it('sudo: says what asked for it, no duplicated red box; when active, a time people read', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const detour = await client.post(
      '/tokens/create',
      { name: 'kept name', abilities: 'posts:read' },
      'form',
      {
        headers: { referer: 'http://localhost:3000/tokens' },
      },
    );
    expect(detour.location).toBe('/sudo?next=%2Ftokens');
    const sudo = await client.get(detour.location!, 'form');
    expect(sudo.text).toContain('create an access token');
    expect(sudo.text).not.toContain('Please confirm your identity to continue.');
    expect(sudo.text).not.toContain('class="flash error"');
    const verified = await client.post(
      '/sudo/verify',
      { factor: 'password', proof: TEST_PASSWORD, next: '/tokens' },
      'form',
    );
    expect(verified.location).toBe('/tokens');
    // What was typed before the detour is back in the form, once.
    const tokens = await client.get('/tokens', 'form');
    expect(tokens.text).toContain('value="kept name"');
    expect(tokens.text).toContain('value="posts:read"');
    expect((await client.get('/tokens', 'form')).text).not.toContain('value="kept name"');
    const active = await client.get('/sudo', 'form');
    expect(active.text).toContain('Sudo mode is on');
    expect(active.text).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z</);
  });

  it('tokens: copy button, confirmed danger revoke, a date field for the expiry', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const created = await client.post('/tokens/create', { name: 'ci', expires_at: '2099-01-01' }, 'form');
    expect(created.status).toBe(201);
    expect(created.text).toContain('data-copy="new-token-value"');
    expect(created.text).toMatch(/data-confirm="Revoke the token ci\?/);
    expect(created.text).toMatch(/<button type="submit" class="danger">\s*Revoke/);
    expect(created.text).toMatch(/type="date"/);
    expect(created.text).not.toMatch(/type="datetime-local"/);
  });

  it('TOTP setup: straight to the QR code after sudo; a wrong code keeps the QR code and offers cancel', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const settings = await client.get('/two-factor', 'form');
    expect(settings.text).toContain('href="/sudo?next=%2Ftwo-factor%3Fsetup%3Dtotp"');
    await elevate(client);
    const setup = await client.get('/two-factor?setup=totp', 'form');
    expect(setup.text).toMatch(/id="totp-qr"/);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.text)![1];
    const wrong = await client.post(
      '/two-factor/enroll/confirm',
      { factor: 'totp', proof: '000000' },
      'form',
    );
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/id="totp-qr"/);
    expect(wrong.text).toContain(`id="totp-secret">${secret}<`);
    expect(wrong.text).toContain('id="totp-cancel"');
    expect(count(wrong.text, 'That proof was not accepted')).toBe(1);
  });
});

describe('emailed code page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: ['email_2fa'] });
  });
  afterAll(async () => t?.close());

  it('a wrong code says so once', async () => {
    const user = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    const page = await client.post('/action/handle', { code: '000000' }, 'form');
    expect(page.status).toBe(404);
    expect(page.text.split('The code is invalid or has expired.').length - 1).toBe(1);
  });
});
