import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../support/app.ts';
import { socialSignIn, useSocialApp } from '../../support/mock-provider.ts';
import { elevate } from '../../support/sudo.ts';

const NEW_PASSWORD = 'a brand new passphrase';

describe('set-password', () => {
  const app = useSocialApp();

  it('lets a social-only user set a password, then sign in with email and password', async () => {
    const client = app.t.client();
    const social = await socialSignIn(app.mock, client, {
      sub: 'social-only',
      email: 'social.only@example.com',
      email_verified: true,
    });
    expect(social.status).toBe(200);

    const before = await client.get('/set-password');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ has_password: false });
    // Signing in with a password is impossible while there is none.
    const refused = await app.t
      .client()
      .post('/login', { email: 'social.only@example.com', password: NEW_PASSWORD });
    expect(refused.status).toBe(401);

    const set = await client.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ action: 'password.set', status: 'success' });
    expect((await client.get('/set-password')).body.data).toEqual({ has_password: true });
    expect((await client.get('/me')).status).toBe(200);

    const login = await app.t
      .client()
      .post('/login', { email: 'social.only@example.com', password: NEW_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(social.body.user.id);
  });

  it('applies the registration rules (422)', async () => {
    const client = app.t.client();
    await socialSignIn(app.mock, client, {
      sub: 'social-rules',
      email: 'rules@example.com',
      email_verified: true,
    });
    const cases: [Record<string, string>, string][] = [
      [{}, 'password'],
      [{ password: 'short', password_confirm: 'short' }, 'password'],
      [{ password: 'password123', password_confirm: 'password123' }, 'password'],
      [{ password: NEW_PASSWORD, password_confirm: 'something else' }, 'password_confirm'],
      [{ password: NEW_PASSWORD }, 'password_confirm'],
    ];
    for (const [body, field] of cases) {
      const response = await client.post('/set-password', body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors[field], JSON.stringify(body)).toEqual(expect.any(String));
    }
    expect((await client.get('/set-password')).body.data.has_password).toBe(false);
  });

  it('needs sudo to replace a password, then ends the other sessions and remember-me tokens', async () => {
    const user = await app.t.createUser();
    const client = await app.t.signIn(user);
    const other = await app.t.signIn(user);
    const remembered = app.t.client();
    expect(
      (await remembered.post('/login', { email: user.email, password: TEST_PASSWORD, remember: true }))
        .status,
    ).toBe(200);
    expect((await client.get('/set-password')).body.data).toEqual({ has_password: true });

    const denied = await client.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ action: 'sudo.required', status: 'error', redirect_to: '/sudo' });
    expect(denied.body.data.factors).toContain('password');
    // Nothing changed: the old password still works.
    expect((await app.t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
      200,
    );

    await elevate(client);
    const changed = await client.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.action).toBe('password.set');

    expect((await client.get('/me')).status).toBe(200);
    expect((await other.get('/me')).status).toBe(401);
    remembered.cookies.delete('citadel_session');
    expect((await remembered.get('/me')).status).toBe(401);
    expect((await app.t.client().post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(
      401,
    );
    expect((await app.t.client().post('/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(
      200,
    );
  });

  it('sends a browser without sudo to the sudo page', async () => {
    const user = await app.t.createUser();
    const client = await app.t.signIn(user);
    const page = await client.get('/set-password', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Change your password');
    const post = await client.post(
      '/set-password',
      { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      'form',
      { headers: { referer: 'http://localhost:3000/set-password' } },
    );
    expect(post.status).toBe(303);
    expect(post.location).toMatch(/^\/sudo/);
  });

  it('requires a session: no caller or a bearer token gets 401', async () => {
    expect((await app.t.client().get('/set-password')).status).toBe(401);
    expect(
      (await app.t.client().post('/set-password', { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }))
        .status,
    ).toBe(401);
    const anonymousPage = await app.t.client().get('/set-password', 'form');
    expect(anonymousPage.status).toBe(303);
    expect(anonymousPage.location).toBe('/login');

    const user = await app.t.createUser({ password: null });
    const { token } = await app.t.services.tokens.issue({
      userId: user.id,
      name: 'api',
      abilities: ['*'],
      expiresAt: null,
    });
    const viaToken = await app.t
      .client()
      .post('/set-password', { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD }, 'json', { token });
    expect(viaToken.status).toBe(401);
    expect((await app.t.services.users.findById(user.id))!.password_hash).toBeNull();
  });
});
