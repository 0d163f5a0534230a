import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { codeIn } from '../../support/mail.ts';

const PASSWORD = 'a-long-secret-pw';

describe('email_activation after registration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ registerActions: ['email_activation'] });
  });
  afterAll(async () => t?.close());

  async function register(name: string) {
    const client = t.client();
    const email = `${name}@example.com`;
    const reg = await client.post('/register', {
      username: name,
      email,
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    return { client, email, reg };
  }

  it('the account is inactive and not signed in until the emailed code is handled', async () => {
    const { client, email, reg } = await register('activateme');
    expect(reg.status).toBe(200);
    expect(reg.body).toMatchObject({
      action: 'register.action_required',
      status: 'info',
      redirect_to: '/action/show',
    });
    expect((await t.services.users.findByEmail(email))?.active).toBe(0);
    expect((await client.get('/me')).status).toBe(401);

    const show = await client.get('/action/show');
    expect(show.body.data).toMatchObject({ action: 'email_activation', email: 'a***@example.com' });

    const code = codeIn(await t.mail.waitFor(email, { count: 1 }));
    const done = await client.post('/action/handle', { code });
    expect(done.body).toMatchObject({ action: 'action.success', status: 'success', redirect_to: '/' });
    expect(done.body.user.active).toBe(true);
    expect((await t.services.users.findByEmail(email))?.active).toBe(1);
    expect((await client.get('/me')).body.user.email).toBe(email);
  });

  it('a wrong activation code leaves the account inactive', async () => {
    const { client, email } = await register('wrongcode');
    const code = codeIn(await t.mail.waitFor(email, { count: 1 }));
    const wrong = String((Number(code) + 7) % 1_000_000).padStart(6, '0');
    expect((await client.post('/action/handle', { code: wrong })).status).toBe(404);
    expect((await t.services.users.findByEmail(email))?.active).toBe(0);
  });

  it('activation is not lost with the session: signing in later resumes it', async () => {
    const { email } = await register('comeback');
    await t.mail.waitFor(email, { count: 1 });
    // A different browser, later: the right password leads to activation, not to a refusal.
    t.clock.advance(3600);
    const later = t.client();
    const login = await later.post('/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ action: 'login.action_required', redirect_to: '/action/show' });
    expect((await later.get('/action/show')).body.data.action).toBe('email_activation');
    const code = codeIn(await t.mail.waitFor(email, { count: 2 }));
    const done = await later.post('/action/handle', { code });
    expect(done.body.action).toBe('action.success');
    expect((await t.services.users.findByEmail(email))?.active).toBe(1);

    // Once active, a sign-in goes straight through (no action configured for login).
    const next = t.client();
    const again = await next.post('/login', { email, password: PASSWORD });
    expect(again.body.action).toBe('login.attempt');
  });

  it('the wrong password on an inactive account is still a plain 401', async () => {
    const { email } = await register('wrongpass');
    const login = await t.client().post('/login', { email, password: 'not-the-password' });
    expect(login.status).toBe(401);
  });
});

describe('inactive accounts without activation configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: ['email_2fa'] });
  });
  afterAll(async () => t?.close());

  it('are refused with 403 and get no code', async () => {
    const user = await t.createUser({ active: false });
    const login = await t.client().post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.status).toBe(403);
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(0);
  });

  it('an account disabled while its pipeline is pending is not signed in at the end', async () => {
    const user = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    const code = codeIn(await t.mail.waitFor(user.email, { count: 1 }));
    await t.services.users.setActive(user.id, false);
    const done = await client.post('/action/handle', { code });
    expect(done.status).toBe(403);
    expect((await client.get('/me')).status).toBe(401);
  });
});
