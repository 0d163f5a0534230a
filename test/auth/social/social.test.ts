import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { codeIn } from '../../support/mail.ts';
import {
  MockProvider,
  authorize,
  socialPlugins,
  socialSignIn,
  startSignIn,
} from '../../support/mock-provider.ts';
import { isPlaceholderEmail } from '../../../src/auth/social/identities.ts';

async function countUsers(t: TestApp): Promise<number> {
  const row = await t.services.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('social sign-in against a real OpenID Connect provider', () => {
  let mock: MockProvider;
  let t: TestApp;
  beforeAll(async () => {
    mock = await new MockProvider().start();
    t = await startTestApp({
      plugins: socialPlugins([
        mock.providerConfig(),
        // Nothing listens on port 1: discovery fails.
        { ...mock.providerConfig('down'), issuer: 'http://127.0.0.1:1' },
      ]),
    });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.stop();
  });

  it('redirects with state, PKCE S256, nonce and the configured redirect URI', async () => {
    const client = t.client();
    const url = await startSignIn(client);
    expect(url.origin).toBe(new URL(mock.issuer).origin);
    expect(url.pathname).toBe('/authorize');
    const q = url.searchParams;
    expect(q.get('client_id')).toBe('citadel-test-client');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe('http://localhost:3000/oauth/callback/mock');
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(22);
    expect(q.get('nonce')!.length).toBeGreaterThanOrEqual(22);
    // The session store holds neither the state nor the nonce in plain text (nor the PKCE verifier).
    const stored = JSON.stringify(await t.services.db.selectFrom('sessions').selectAll().execute());
    expect(stored).toContain('oauth_flow');
    expect(stored).not.toContain(q.get('state')!);
    expect(stored).not.toContain(q.get('nonce')!);
    // A second attempt gets fresh values.
    const again = await startSignIn(client);
    expect(again.searchParams.get('state')).not.toBe(q.get('state'));
    expect(again.searchParams.get('nonce')).not.toBe(q.get('nonce'));
    expect(again.searchParams.get('code_challenge')).not.toBe(q.get('code_challenge'));
  });

  it('answers 400, not 500, when the provider cannot be reached', async () => {
    const response = await t.client().get('/oauth/down');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ action: 'social.login', status: 'error' });
  });

  it('answers 404 for an unknown provider', async () => {
    expect((await t.client().get('/oauth/nope')).status).toBe(404);
    expect((await t.client().get('/oauth/callback/nope?code=x&state=y')).status).toBe(404);
  });

  it('creates the user on the first sign-in and finds it on the second', async () => {
    const client = t.client();
    const before = await countUsers(t);
    const first = await socialSignIn(mock, client, {
      sub: 'subject-first',
      email: 'First.Person@Example.com',
      email_verified: true,
      preferred_username: 'first.person',
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      action: 'social.login',
      status: 'success',
      redirect_to: '/',
      user: { username: 'first person', email: 'first.person@example.com', active: true },
    });
    expect(await countUsers(t)).toBe(before + 1);
    const me = await client.get('/me');
    expect(me.body.user.id).toBe(first.body.user.id);

    const user = await t.services.users.findById(first.body.user.id);
    expect(user!.password_hash).toBeNull();
    const identities = await t.services.db.selectFrom('oauth_identities').selectAll().execute();
    expect(identities).toContainEqual(
      expect.objectContaining({
        provider: 'mock',
        subject: 'subject-first',
        email: 'first.person@example.com',
        user_id: first.body.user.id,
      }),
    );

    const other = t.client();
    const second = await socialSignIn(mock, other, {
      sub: 'subject-first',
      email: 'first.person@example.com',
      email_verified: true,
    });
    expect(second.status).toBe(200);
    expect(second.body.user.id).toBe(first.body.user.id);
    expect(await countUsers(t)).toBe(before + 1);
  });

  it('never stores the provider access token', async () => {
    await socialSignIn(mock, t.client(), {
      sub: 'subject-tokens',
      email: 'tok@example.com',
      email_verified: true,
    });
    expect(mock.issuedAccessTokens.length).toBeGreaterThan(0);
    const tables = ['users', 'sessions', 'oauth_identities'] as const;
    for (const table of tables) {
      const dump = JSON.stringify(await t.services.db.selectFrom(table).selectAll().execute());
      for (const token of mock.issuedAccessTokens) expect(dump).not.toContain(token);
    }
  });

  it('sends a browser on with 303 after signing in', async () => {
    const client = t.client();
    const response = await socialSignIn(
      mock,
      client,
      { sub: 'subject-browser', email_verified: false },
      'form',
    );
    expect(response.status).toBe(303);
    expect(response.location).toBe('/');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('rejects a tampered state with 400, and the attempt is gone afterwards', async () => {
    const client = t.client();
    mock.identity = { sub: 'subject-tampered' };
    const callback = await authorize(await startSignIn(client));
    const url = new URL(callback, 'http://localhost');
    const state = url.searchParams.get('state')!;
    url.searchParams.set('state', state.slice(0, -1) + (state.endsWith('A') ? 'B' : 'A'));
    const tampered = await client.get(url.pathname + url.search);
    expect(tampered.status).toBe(400);
    expect(tampered.body).toMatchObject({ action: 'social.login', status: 'error', statusCode: 400 });
    // The genuine callback no longer works either: the state was single use.
    const genuine = await client.get(callback);
    expect(genuine.status).toBe(400);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('rejects a replayed callback with 400', async () => {
    const client = t.client();
    mock.identity = { sub: 'subject-replay' };
    const callback = await authorize(await startSignIn(client));
    expect((await client.get(callback)).status).toBe(200);
    const replay = await client.get(callback);
    expect(replay.status).toBe(400);
    expect(replay.body.status).toBe('error');
  });

  it('rejects a callback without state, or from another browser, with 400', async () => {
    const victim = t.client();
    mock.identity = { sub: 'subject-other-browser' };
    const callback = await authorize(await startSignIn(t.client()));
    // Login CSRF: the attacker's callback URL opened in the victim's browser.
    expect((await victim.get(callback)).status).toBe(400);
    expect((await victim.get('/me')).status).toBe(401);

    const client = t.client();
    const own = new URL(await authorize(await startSignIn(client)), 'http://localhost');
    own.searchParams.delete('state');
    expect((await client.get(own.pathname + own.search)).status).toBe(400);
  });

  it('rejects a provider error with 400', async () => {
    const client = t.client();
    const url = await startSignIn(client);
    const state = url.searchParams.get('state')!;
    const response = await client.get(
      `/oauth/callback/mock?error=access_denied&error_description=${encodeURIComponent('<b>no</b>')}&state=${state}`,
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ action: 'social.login', status: 'error' });
    expect(response.text).not.toContain('<b>no</b>');
    const page = await client.get(`/oauth/callback/mock?error=access_denied&state=${state}`, 'form');
    expect(page.status).toBe(400);
  });

  it('rejects a failed code exchange with 400', async () => {
    const client = t.client();
    mock.identity = { sub: 'subject-bad-code' };
    const url = new URL(await authorize(await startSignIn(client)), 'http://localhost');
    url.searchParams.set('code', 'not-a-code-the-provider-issued');
    const response = await client.get(url.pathname + url.search);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ action: 'social.login', status: 'error' });
  });

  it('rejects an ID token whose nonce does not match with 400', async () => {
    const client = t.client();
    mock.identity = { sub: 'subject-nonce' };
    const callback = await authorize(await startSignIn(client));
    const listener = (token: { payload: Record<string, unknown> }) => {
      if ('nonce' in token.payload) token.payload.nonce = 'a-different-nonce';
    };
    mock.server.service.on('beforeTokenSigning', listener);
    try {
      expect((await client.get(callback)).status).toBe(400);
    } finally {
      mock.server.service.off('beforeTokenSigning', listener);
    }
    expect((await client.get('/me')).status).toBe(401);
  });

  it('expires an unfinished attempt', async () => {
    const client = t.client();
    mock.identity = { sub: 'subject-slow' };
    const callback = await authorize(await startSignIn(client));
    t.clock.advance(11 * 60);
    expect((await client.get(callback)).status).toBe(400);
  });

  it('links a provider-verified email to the existing account', async () => {
    const existing = await t.createUser({
      email: 'linkme@example.com',
      username: 'link me',
      emailVerified: true,
    });
    const before = await countUsers(t);
    const response = await socialSignIn(mock, t.client(), {
      sub: 'subject-link',
      email: 'LinkMe@example.com',
      email_verified: true,
    });
    expect(response.status).toBe(200);
    expect(response.body.user.id).toBe(existing.id);
    expect(await countUsers(t)).toBe(before);
    const identity = await t.services.db
      .selectFrom('oauth_identities')
      .selectAll()
      .where('subject', '=', 'subject-link')
      .executeTakeFirstOrThrow();
    expect(identity.user_id).toBe(existing.id);
  });

  it('never links on an unverified email: a new account without that address instead', async () => {
    const victim = await t.createUser({ email: 'victim@example.com', username: 'victim' });
    for (const email_verified of [false, undefined]) {
      const before = await countUsers(t);
      const response = await socialSignIn(mock, t.client(), {
        sub: `subject-unverified-${String(email_verified)}`,
        email: 'victim@example.com',
        email_verified,
        preferred_username: 'victim',
      });
      expect(response.status).toBe(200);
      expect(response.body.user.id).not.toBe(victim.id);
      expect(await countUsers(t)).toBe(before + 1);
      expect(response.body.user.email).not.toBe('victim@example.com');
      expect(isPlaceholderEmail(response.body.user.email)).toBe(true);
      expect(response.body.user.username).not.toBe('victim');
      expect(response.body.user.username).toMatch(/^[A-Za-z0-9 ]{3,30}$/);
    }
    // An unverified address nobody uses is not given to the new account either.
    const free = await socialSignIn(mock, t.client(), {
      sub: 'subject-unverified-free',
      email: 'nobody-yet@example.com',
      email_verified: false,
    });
    expect(free.status).toBe(200);
    expect(isPlaceholderEmail(free.body.user.email)).toBe(true);
    expect(await t.services.users.findByEmail('nobody-yet@example.com')).toBeUndefined();
  });

  it('makes a valid, unique username from the profile', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const response = await socialSignIn(mock, t.client(), {
        sub: `subject-name-${i}`,
        email: `name${i}@example.com`,
        email_verified: true,
        preferred_username: '  José_Álvarez!!  ',
      });
      expect(response.status).toBe(200);
      const username: string = response.body.user.username;
      expect(username).toMatch(/^[A-Za-z0-9 ]{3,30}$/);
      expect(username.startsWith('Jose Alvarez')).toBe(true);
      names.add(username.toLowerCase());
    }
    expect(names.size).toBe(3);
    const fallback = await socialSignIn(mock, t.client(), {
      sub: 'subject-name-none',
      preferred_username: '!!',
    });
    expect(fallback.body.user.username).toMatch(/^user(\d+)?$/);
  });

  it('refuses a disabled account with 403', async () => {
    const first = await socialSignIn(mock, t.client(), { sub: 'subject-disabled', email_verified: false });
    await t.services.users.setActive(first.body.user.id, false);
    const client = t.client();
    const again = await socialSignIn(mock, client, { sub: 'subject-disabled', email_verified: false });
    expect(again.status).toBe(403);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('a social-only user (nothing to prove) may create a token right after signing in', async () => {
    const client = t.client();
    const signedIn = await socialSignIn(mock, client, { sub: 'subject-token-maker', email_verified: false });
    expect(signedIn.status).toBe(200);
    const created = await client.post('/tokens', { name: 'from social' });
    expect(created.status, created.text).toBe(201);
  });
});

describe('social sign-in with AUTH_LOGIN_ACTIONS=email_2fa', () => {
  let mock: MockProvider;
  let t: TestApp;
  beforeAll(async () => {
    mock = await new MockProvider().start();
    t = await startTestApp({ plugins: socialPlugins([mock.providerConfig()]), loginActions: ['email_2fa'] });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.stop();
  });

  it('enters the pipeline instead of signing in', async () => {
    const user = await t.createUser({ email: 'pipeline@example.com', emailVerified: true });
    const client = t.client();
    const response = await socialSignIn(mock, client, {
      sub: 'subject-pipeline',
      email: 'pipeline@example.com',
      email_verified: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      action: 'login.action_required',
      status: 'info',
      redirect_to: '/action/show',
    });
    expect(response.body.user).toBeUndefined();
    expect((await client.get('/me')).status).toBe(401);
    const show = await client.get('/action/show');
    expect(show.status).toBe(200);
    expect(show.body.data.action).toBe('email_2fa');
    // Finishing the action signs the same user in.
    const code = codeIn(await t.mail.waitFor(user.email, { count: 1 }));
    const done = await client.post('/action/handle', { code });
    expect(done.status, done.text).toBe(200);
    expect(done.body.action).toBe('action.success');
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });
});
