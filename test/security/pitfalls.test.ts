/**
 * The flaws of the system the spec was distilled from (design.md, "Pitfalls"), each proved absent
 * where the feature suites did not already prove it, or proved only a narrower case. docs/security.md
 * maps every pitfall to the test that covers it (here or in the feature suites).
 */
import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import type { TestClient } from '../support/client.ts';
import { codeIn, linkIn } from '../support/mail.ts';
import { authorize, socialSignIn, startSignIn, useSocialApp } from '../support/mock-provider.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { enrollTotp, nextStep, startLogin, sudoWithPassword, totpCode } from '../support/factors.ts';
import type { UserRecord } from '../../src/auth/core/users.ts';
import { sudoOptions } from '../../src/auth/sudo/options.ts';
import { pipelineOptions } from '../../src/auth/pipeline/options.ts';

const ORIGIN = 'http://localhost:3000';
const MAGIC_PREFIX = `${ORIGIN}/magic-link/verify/`;
const RESET_PREFIX = `${ORIGIN}/reset-password?token=`;

/** A 6-digit code that is not `code`. */
function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

/** Every stored session's `data`, joined: what the session store holds at rest. */
async function sessionData(t: TestApp): Promise<string> {
  const rows = await t.services.db.selectFrom('sessions').select('data').execute();
  return rows.map((r) => String(r.data)).join('\n');
}

/** `value` as a whole token (not a piece of a longer digest or number) somewhere in `text`. */
function containsToken(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])`).test(text);
}

/** TOTP enrollment for an elevated client: the secret and the recovery codes it was shown. */
async function enrollTotpAfterSudoIn(t: TestApp, client: TestClient) {
  const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
  expect(start.status, start.text).toBe(200);
  const secret = start.body.data.secret as string;
  const confirm = await client.post('/two-factor/enroll/confirm', {
    factor: 'totp',
    proof: totpCode(t, secret),
  });
  expect(confirm.status, confirm.text).toBe(200);
  return { secret, recoveryCodes: confirm.body.data.recovery_codes as string[] };
}

/** Magic-link sign-in up to the verify response (JSON). */
async function magicLinkSignIn(t: TestApp, client: TestClient, email: string) {
  // Only sign-in links count: security notices may arrive meanwhile.
  const isLink = (m: { text: string }) => m.text.includes(MAGIC_PREFIX);
  const before = t.mail.to(email).filter(isLink).length;
  expect((await t.client().post('/magic-link', { email })).status).toBe(200);
  const mail = await t.mail.waitFor(email, { count: before + 1, match: isLink });
  const token = linkIn(mail, MAGIC_PREFIX).slice(MAGIC_PREFIX.length);
  return { token, response: await client.get(`/magic-link/verify/${token}`) };
}

describe('security pitfalls (no login actions configured)', () => {
  const app = useSocialApp();

  it('sudo is not inherited by another account signing in on the same browser, even without a sign-out', async () => {
    const alice = await app.t.createUser();
    const bob = await app.t.createUser();
    const client = await app.t.signIn(alice);
    await sudoWithPassword(client);
    expect((await client.get('/sudo')).body.data.active).toBe(true);

    // Bob signs in over Alice's elevated session (no logout in between).
    const login = await client.post('/login', { email: bob.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.attempt');
    expect((await client.get('/me')).body.user.id).toBe(bob.id);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
    const create = await client.post('/tokens', { name: 'inherited?', abilities: ['*'] });
    expect(create.status).toBe(403);
    expect(create.body.action).toBe('sudo.required');
  });

  it('the sudo lifetime is the server setting: ttl/expires_at sent by the client are ignored', async () => {
    const client = await app.t.signIn(await app.t.createUser());
    const ttl = sudoOptions(app.t.services).ttlSeconds;
    const verify = await client.post('/sudo/verify?ttl=999999&expires_at=2099-01-01T00:00:00.000Z', {
      factor: 'password',
      proof: TEST_PASSWORD,
      ttl: 999_999,
      sudo_ttl: 999_999,
      lifetime: 999_999,
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    expect(verify.status, verify.text).toBe(200);
    const expected = app.t.clock.now().getTime() + ttl * 1000;
    expect(Math.abs(Date.parse(verify.body.data.expires_at) - expected)).toBeLessThanOrEqual(1000);
    app.t.clock.advance(ttl + 1);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
    expect((await client.post('/tokens', { name: 'late', abilities: ['*'] })).status).toBe(403);
  });

  it('password change, 2FA removal, recovery-code regeneration, enrollment and token creation all need step-up', async () => {
    const user = await app.t.createUser();
    const client = await app.t.signIn(user);
    await enrollTotp(app.t, client);
    expect((await client.post('/sudo/exit')).status).toBe(200);

    const attempts: [string, Record<string, unknown>][] = [
      ['/set-password', { password: 'a brand new password 1', password_confirm: 'a brand new password 1' }],
      ['/two-factor/unenroll', { factor: 'totp' }],
      ['/two-factor/recovery-codes', {}],
      ['/two-factor/enroll/start', { factor: 'passkey' }],
      ['/tokens', { name: 'no step-up', abilities: ['*'] }],
      ['/tokens/create', { name: 'no step-up', abilities: ['*'] }],
    ];
    for (const [path, body] of attempts) {
      const response = await client.post(path, body);
      expect(response.status, path).toBe(403);
      expect(response.body.action, path).toBe('sudo.required');
      expect(response.body.redirect_to, path).toBe('/sudo');
    }
    // Nothing changed: same password hash, TOTP still enrolled, no token stored.
    const after = (await app.t.services.users.findById(user.id))!;
    expect(after.password_hash).toBe(user.password_hash);
    expect((await client.get('/sudo')).body.data.factors).toContain('totp');
    const tokens = await app.t.services.db
      .selectFrom('personal_access_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(tokens).toEqual([]);
  });

  it('sudo proof failures are counted across factors: the sixth proof is refused even when right', async () => {
    const user = await app.t.createUser();
    const client = await app.t.signIn(user);
    const { secret, recoveryCodes } = await enrollTotp(app.t, client);
    await client.post('/sudo/exit');
    nextStep(app.t);
    const wrong = otherCode(totpCode(app.t, secret));
    for (let i = 0; i < 3; i += 1) {
      expect((await client.post('/sudo/verify', { factor: 'totp', proof: wrong })).status).toBe(422);
    }
    for (let i = 0; i < 2; i += 1) {
      const bad = await client.post('/sudo/verify', { factor: 'recovery_code', proof: 'nope-nope-nope' });
      expect(bad.status).toBe(422);
    }
    const right = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
    expect(right.status).toBe(429);
    expect(right.headers['retry-after']).toBeTruthy();
    const code = await client.post('/sudo/verify', { factor: 'recovery_code', proof: recoveryCodes![0] });
    expect(code.status).toBe(429);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
  });

  it('five wrong TOTP codes at the two_factor sign-in step end the attempt: the right code no longer signs in', async () => {
    const user = await app.t.createUser();
    const owner = await app.t.signIn(user);
    const { secret } = await enrollTotp(app.t, owner);
    nextStep(app.t);
    const client = await startLogin(app.t, user);
    const right = totpCode(app.t, secret);
    for (let i = 0; i < pipelineOptions(app.t.services).maxCodeAttempts; i += 1) {
      const bad = await client.post('/action/handle', { code: otherCode(right) });
      expect(bad.body.status).toBe('error');
      expect(bad.body.action).not.toBe('action.success');
    }
    const late = await client.post('/action/handle', { code: right });
    expect(late.body.action).not.toBe('action.success');
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/action/show')).status).toBe(401);
  });

  it('a TOTP code used to sign in cannot be replayed for sudo (or the other way round) in the same step', async () => {
    const user = await app.t.createUser();
    const owner = await app.t.signIn(user);
    const { secret } = await enrollTotp(app.t, owner);
    nextStep(app.t);
    const client = await startLogin(app.t, user);
    const code = totpCode(app.t, secret);
    expect((await client.post('/action/handle', { code })).body.action).toBe('action.success');
    const replay = await client.post('/sudo/verify', { factor: 'totp', proof: code });
    expect(replay.status).toBe(422);
    expect((await client.get('/sudo')).body.data.active).toBe(false);

    // Sudo first, then the same code at a new sign-in.
    nextStep(app.t);
    const fresh = totpCode(app.t, secret);
    expect((await client.post('/sudo/verify', { factor: 'totp', proof: fresh })).status).toBe(200);
    const other = await startLogin(app.t, user);
    expect((await other.post('/action/handle', { code: fresh })).body.action).not.toBe('action.success');
    expect((await other.get('/me')).status).toBe(401);
  });

  it('an enrolled passkey is asked for at social and magic-link sign-in', async () => {
    const identity = {
      sub: 'pitfall-passkey',
      email: 'pitfall.passkey@example.com',
      email_verified: true,
      preferred_username: 'pitfallpasskey',
    };
    const client = app.t.client();
    expect((await socialSignIn(app.mock, client, identity)).body.action).toBe('social.login');
    // Social-only, nothing to prove yet: elevated by the sign-in, so it may enroll.
    const start = await client.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(start.status, start.text).toBe(200);
    const key = new SoftAuthenticator(ORIGIN);
    const confirm = await client.post('/two-factor/enroll/confirm', {
      factor: 'passkey',
      proof: key.register(start.body.data.options),
    });
    expect(confirm.status, confirm.text).toBe(200);
    await client.post('/logout');

    const social = await socialSignIn(app.mock, client, identity);
    expect(social.body.action).toBe('login.action_required');
    expect((await client.get('/me')).status).toBe(401);
    const show = await client.get('/action/show');
    expect(show.body.data.action).toBe('two_factor');
    const done = await client.post('/action/handle', {
      factor: 'passkey',
      proof: key.assert(show.body.data.passkey.options),
    });
    expect(done.body.action, done.text).toBe('action.success');
    await client.post('/logout');

    const browser = app.t.client();
    const { response } = await magicLinkSignIn(app.t, browser, identity.email);
    expect(response.body.action).toBe('magic_link.action_required');
    expect(response.body.user).toBeUndefined();
    expect((await browser.get('/me')).status).toBe(401);
    expect((await browser.get('/action/show')).body.data.action).toBe('two_factor');
  });

  it('social: "verified" must be exactly true; a linked identity keeps its account whatever email it claims later', async () => {
    const victim = await app.t.createUser({ email: 'social.victim@example.com' });
    for (const claimed of ['false', 'False', '1', 1, 'yes', 'TRUE ', {}]) {
      const response = await socialSignIn(app.mock, app.t.client(), {
        sub: `pitfall-unverified-${JSON.stringify(claimed)}`,
        email: victim.email,
        email_verified: claimed as unknown as boolean,
      });
      expect(response.status, JSON.stringify(claimed)).toBe(200);
      expect(response.body.user.id, JSON.stringify(claimed)).not.toBe(victim.id);
      expect(response.body.user.email).not.toBe(victim.email);
    }
    // An attacker's identity, first signed in with their own address...
    const attacker = await socialSignIn(app.mock, app.t.client(), {
      sub: 'pitfall-attacker',
      email: 'attacker@example.com',
      email_verified: true,
    });
    const attackerId = attacker.body.user.id as number;
    expect(attackerId).not.toBe(victim.id);
    // ...then claiming the victim's (verified) address: still the attacker's own account.
    const again = await socialSignIn(app.mock, app.t.client(), {
      sub: 'pitfall-attacker',
      email: victim.email,
      email_verified: true,
    });
    expect(again.body.user.id).toBe(attackerId);
    const links = await app.t.services.db
      .selectFrom('oauth_identities')
      .select('user_id')
      .where('user_id', '=', victim.id)
      .execute();
    expect(links).toEqual([]);
  });

  it('WebAuthn assertions from a look-alike origin (scheme, port, suffix, subdomain) are refused', async () => {
    const user = await app.t.createUser();
    const owner = await app.t.signIn(user);
    await sudoWithPassword(owner);
    const key = new SoftAuthenticator(ORIGIN);
    const start = await owner.post('/two-factor/enroll/start', { factor: 'passkey' });
    expect(
      (
        await owner.post('/two-factor/enroll/confirm', {
          factor: 'passkey',
          proof: key.register(start.body.data.options),
        })
      ).status,
    ).toBe(200);

    for (const origin of [
      'https://localhost:3000',
      'http://localhost:3001',
      'http://localhost',
      'http://localhost:3000.evil.example',
      'http://sub.localhost:3000',
    ]) {
      const client = app.t.client();
      await client.post('/login', { email: user.email, password: TEST_PASSWORD });
      const options = (await client.get('/action/show')).body.data.passkey.options;
      const response = await client.post('/action/handle', {
        factor: 'passkey',
        proof: key.assert(options, origin),
      });
      expect(response.body.action, origin).not.toBe('action.success');
      expect((await client.get('/me')).status, origin).toBe(401);
      key.counter += 1;
    }
  });

  it('sign-in looks up only email and username: ids, subjects, tokens and patterns with the right password fail', async () => {
    const user = await app.t.createUser({
      email: 'lookup.target@example.com',
      username: 'lookuptarget',
      emailVerified: true,
    });
    // A social identity linked to the account (verified, same email).
    const linked = await socialSignIn(app.mock, app.t.client(), {
      sub: 'subject-lookup-4242',
      email: user.email,
      email_verified: true,
      preferred_username: 'whatever',
    });
    expect(linked.body.user.id).toBe(user.id);
    const { token: pat } = await app.t.services.tokens.issue({
      userId: user.id,
      name: 'lookup',
      abilities: ['*'],
      expiresAt: null,
    });
    await app.t.client().post('/magic-link', { email: user.email });
    // Security notices (factor added) go to the same address: pick the sign-in link's mail.
    const linkMail = () => app.t.mail.to(user.email).find((m) => m.text.includes(MAGIC_PREFIX));
    await expect.poll(linkMail).toBeDefined();
    const magic = linkIn(linkMail()!, MAGIC_PREFIX).slice(MAGIC_PREFIX.length);
    const remembered = app.t.client();
    await remembered.post('/login', { email: user.email, password: TEST_PASSWORD, remember: 1 });
    const rememberCookie = decodeURIComponent(remembered.cookie('citadel_remember')!);
    expect(rememberCookie).toBeTruthy();

    const identifiers = [
      String(user.id),
      'subject-lookup-4242',
      'mock:subject-lookup-4242',
      pat,
      magic,
      rememberCookie,
      rememberCookie.split(':')[0]!,
      'lookup.target',
      'lookuptarge_',
      'lookup%',
      '%@example.com',
      '*',
      "' OR '1'='1",
      'lookuptarget@example.com',
    ];
    for (const identifier of identifiers) {
      for (const field of ['email', 'username']) {
        const response = await app.t
          .client()
          .post('/login', { [field]: identifier, password: TEST_PASSWORD });
        expect(response.status, `${field}=${identifier}`).toBe(401);
        expect(response.body.user, identifier).toBeUndefined();
      }
    }
    // The real identifiers still work, in either field.
    expect(
      (await app.t.client().post('/login', { username: user.email, password: TEST_PASSWORD })).status,
    ).toBe(200);
    expect(
      (await app.t.client().post('/login', { email: 'LookupTarget', password: TEST_PASSWORD })).status,
    ).toBe(200);
  });

  it('tokens are accepted only in the Authorization header: query parameters, body fields and cookies are ignored', async () => {
    const user = await app.t.createUser();
    const { token } = await app.t.services.tokens.issue({
      userId: user.id,
      name: 'where',
      abilities: ['*'],
      expiresAt: null,
    });
    expect((await app.t.client().get('/me', 'json', { token })).status).toBe(200);
    for (const name of ['access_token', 'token', 'api_key', 'bearer', 'auth']) {
      const response = await app.t.client().get(`/me?${name}=${token}`);
      expect(response.status, name).toBe(401);
    }
    const viaBody = await app.t.client().post('/tokens', { name: 'x', access_token: token, token });
    expect(viaBody.status).toBe(401);
    const viaCookie = await app.t
      .client()
      .get('/me', 'json', { headers: { cookie: `access_token=${token}` } });
    expect(viaCookie.status).toBe(401);
    // Other schemes in the header are not a token either.
    for (const header of [`Token ${token}`, `Basic ${token}`, token]) {
      const response = await app.t.client().get('/me', 'json', { headers: { authorization: header } });
      expect(response.status, header).toBe(401);
    }
  });

  it('a narrow token cannot mint a broader one (`*`, a wildcard, an ability it lacks, or the empty default)', async () => {
    const user = await app.t.createUser();
    const { token: narrow } = await app.t.services.tokens.issue({
      userId: user.id,
      name: 'narrow',
      abilities: ['tokens:create', 'tokens:read'],
      expiresAt: null,
    });
    for (const abilities of [['*'], ['tokens:*'], ['tokens:delete'], ['posts:read'], [], undefined]) {
      const response = await app.t
        .client()
        .post('/tokens', abilities === undefined ? { name: 'esc' } : { name: 'esc', abilities }, 'json', {
          token: narrow,
        });
      expect([403, 422], `${JSON.stringify(abilities)}: ${response.status}`).toContain(response.status);
    }
    const ok = await app.t
      .client()
      .post('/tokens', { name: 'same', abilities: ['tokens:read'] }, 'json', { token: narrow });
    expect(ok.status, ok.text).toBe(201);
    const rows = await app.t.services.db
      .selectFrom('personal_access_tokens')
      .select('abilities')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows.map((r) => String(r.abilities)).join(' ')).not.toContain('*');
  });

  it('the session store never holds a TOTP enrollment secret, a social state or nonce, or recovery codes in plain text', async () => {
    const user = await app.t.createUser();
    const client = await app.t.signIn(user);
    await sudoWithPassword(client);
    const start = await client.post('/two-factor/enroll/start', { factor: 'totp' });
    const secret = start.body.data.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    let stored = await sessionData(app.t);
    expect(stored).not.toContain(secret);
    expect(stored.toUpperCase()).not.toContain(secret);
    const confirm = await client.post('/two-factor/enroll/confirm', {
      factor: 'totp',
      proof: totpCode(app.t, secret),
    });
    const codes = confirm.body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    stored = await sessionData(app.t);
    expect(stored).not.toContain(secret);
    for (const code of codes) expect(stored).not.toContain(code);
    // Nor after enrollment: GET /two-factor does not give the secret back.
    expect((await client.get('/two-factor')).text).not.toContain(secret);

    const social = app.t.client();
    const redirect = await social.get('/oauth/mock', 'form');
    expect(redirect.status).toBe(302);
    const query = new URL(redirect.location!).searchParams;
    stored = await sessionData(app.t);
    for (const name of ['state', 'nonce']) {
      expect(query.get(name)!.length, name).toBeGreaterThan(16);
      expect(stored, name).not.toContain(query.get(name)!);
    }
    // The sudo proof (the password) is never kept either.
    expect(stored).not.toContain(TEST_PASSWORD);
  });
});

describe('security pitfalls with AUTH_LOGIN_ACTIONS=email_2fa, logs captured', () => {
  const lines: string[] = [];
  const app = useSocialApp({
    loginActions: ['email_2fa'],
    // The tests below count the codes and links mailed to one address; security notices would interleave.
    notifyEvents: [],
    logger: undefined,
    logLevel: 'trace',
    logStream: { write: (line: string) => void lines.push(line) },
  });

  async function passwordStep(user: UserRecord, client = app.t.client()) {
    const before = app.t.mail.to(user.email).length;
    const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.action_required');
    return { client, code: codeIn(await app.t.mail.waitFor(user.email, { count: before + 1 })) };
  }

  it('the emailed code is never in the session store, before or after a resend', async () => {
    const user = await app.t.createUser();
    const { client, code } = await passwordStep(user);
    expect(containsToken(await sessionData(app.t), code)).toBe(false);
    app.t.clock.advance(pipelineOptions(app.t.services).codeResendIntervalSeconds + 1);
    expect((await client.post('/action/challenge')).status).toBe(200);
    const resent = codeIn(await app.t.mail.waitFor(user.email, { count: 2 }));
    expect(containsToken(await sessionData(app.t), resent)).toBe(false);
    expect((await client.post('/action/handle', { code: resent })).body.action).toBe('action.success');
  });

  it('social sign-in runs the configured pipeline too (no shortcut past email_2fa)', async () => {
    const client = app.t.client();
    const response = await socialSignIn(app.mock, client, {
      sub: 'pitfall-social-2fa',
      email: 'pitfall.social@example.com',
      email_verified: true,
      preferred_username: 'pitfallsocial',
    });
    expect(response.body.action).toBe('login.action_required');
    expect(response.body.user).toBeUndefined();
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/sudo')).body.data?.active ?? false).toBe(false);
    const code = codeIn(await app.t.mail.waitFor('pitfall.social@example.com', { count: 1 }));
    expect((await client.post('/action/handle', { code })).body.action).toBe('action.success');
    expect((await client.get('/me')).status).toBe(200);
  });

  it('logs never hold a password, code, magic-link or reset token, access token, session id or cookie', async () => {
    const PASSWORD = 'pitfall-log-password-93';
    const NEW_PASSWORD = 'pitfall-log-password-new-17';
    const user = await app.t.createUser({ password: PASSWORD, email: 'pitfall.logs@example.com' });
    const secrets: string[] = [PASSWORD, NEW_PASSWORD];

    // Password + emailed code, with remember-me.
    const client = app.t.client();
    await client.post('/login', { email: user.email, password: PASSWORD, remember: 1 });
    const code = codeIn(await app.t.mail.waitFor(user.email, { count: 1 }));
    await client.post('/action/handle', { code: otherCode(code) });
    expect((await client.post('/action/handle', { code })).body.action).toBe('action.success');
    secrets.push(client.cookie('citadel_session')!, client.cookie('citadel_remember')!);

    // A personal access token, created (sudo with the password) and used.
    expect((await client.post('/sudo/verify', { factor: 'password', proof: PASSWORD })).status).toBe(200);
    const created = await client.post('/tokens', { name: 'log token', abilities: ['*'] });
    expect(created.status, created.text).toBe(201);
    const pat = created.body.token as string;
    secrets.push(pat, client.cookie('citadel_session')!);
    expect((await app.t.client().get('/me', 'json', { token: pat })).status).toBe(200);
    await app.t.client().get('/me', 'json', { token: `${pat}x` });

    // Magic link, then its emailed code.
    const browser = app.t.client();
    const { token: magic, response } = await magicLinkSignIn(app.t, browser, user.email);
    expect(response.body.action).toBe('magic_link.action_required');
    const magicCode = codeIn(await app.t.mail.waitFor(user.email, { count: 3 }));
    expect((await browser.post('/action/handle', { code: magicCode })).body.action).toBe('action.success');
    secrets.push(magic, magicCode, code, browser.cookie('citadel_session')!);

    // The pending magic-link sign-in kept no trace of the link's token in the session.
    expect(await sessionData(app.t)).not.toContain(magic);

    // TOTP enrollment (the secret and recovery codes go out in the response only).
    const enroll = await browser.post('/two-factor/enroll/start', { factor: 'totp' });
    expect(enroll.status, enroll.text).toBe(403);
    expect((await browser.post('/sudo/verify', { factor: 'password', proof: PASSWORD })).status).toBe(200);
    const totp = await enrollTotpAfterSudoIn(app.t, browser);
    secrets.push(totp.secret, ...totp.recoveryCodes);

    // Social sign-in: the callback's code and state are secrets of that browser.
    const social = app.t.client();
    app.mock.identity = {
      sub: 'pitfall-log-social',
      email: 'pitfall.log.social@example.com',
      email_verified: true,
    };
    const callback = await authorize(await startSignIn(social));
    const params = new URL(callback, ORIGIN).searchParams;
    const back = await social.get(callback);
    expect(back.body.action).toBe('login.action_required');
    secrets.push(params.get('code')!, params.get('state')!);
    // A failed exchange is logged (warn, with the error), but not with the code that was sent.
    const failing = app.t.client();
    const failed = new URL(await authorize(await startSignIn(failing)), ORIGIN);
    failed.searchParams.set('code', 'pitfall-code-the-provider-never-issued');
    expect((await failing.get(failed.pathname + failed.search)).status).toBe(400);
    secrets.push(
      'pitfall-code-the-provider-never-issued',
      failed.searchParams.get('state')!,
      app.mock.providerConfig().clientSecret!,
    );

    // Forgot and reset password, form client (CSRF token in the body).
    const resetClient = app.t.client();
    await resetClient.post('/forgot-password', { email: user.email }, 'form');
    const reset = new URL(
      linkIn(await app.t.mail.waitFor(user.email, { count: 4 }), RESET_PREFIX),
    ).searchParams.get('token')!;
    await resetClient.get(`/reset-password?token=${encodeURIComponent(reset)}`, 'form');
    const done = await resetClient.post(
      '/reset-password',
      { token: reset, password: NEW_PASSWORD, password_confirm: NEW_PASSWORD },
      'form',
    );
    expect(done.status).toBe(303);
    secrets.push(reset, resetClient.cookie('citadel_session')!);

    const log = lines.join('');
    expect(log).toContain('code exchange failed');
    expect(log).toContain('/magic-link/verify');
    expect(log).toContain('/reset-password');
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(5);
      expect(containsToken(log, secret), `secret in the log: ${secret.slice(0, 4)}…`).toBe(false);
    }
    expect(log).not.toContain('citadel_pat_');
    expect(log.toLowerCase()).not.toContain('set-cookie');
    expect(log).not.toMatch(/"authorization"/i);
    expect(log).not.toMatch(/\$argon2/);
  });
});
