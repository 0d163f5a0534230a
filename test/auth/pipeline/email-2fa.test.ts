import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { codeIn } from '../../support/mail.ts';
import type { TestClient } from '../../support/client.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';

/** Sign in with the password and read the code from the real captured email. */
async function startLogin(t: TestApp, user: UserRecord): Promise<{ client: TestClient; code: string }> {
  const client = t.client();
  const before = t.mail.to(user.email).length;
  const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
  expect(login.status).toBe(200);
  expect(login.body).toMatchObject({
    action: 'login.action_required',
    status: 'info',
    redirect_to: '/action/show',
  });
  expect(login.body.user).toBeUndefined();
  const mail = await t.mail.waitFor(user.email, { count: before + 1 });
  return { client, code: codeIn(mail) };
}

/** A 6-digit code that is not `code`. */
function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

describe('email_2fa after password sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: ['email_2fa'] });
  });
  afterAll(async () => t?.close());

  it('asks for the emailed code and is not signed in meanwhile', async () => {
    const user = await t.createUser();
    const { client } = await startLogin(t, user);
    expect((await client.get('/me')).status).toBe(401);
    const show = await client.get('/action/show');
    expect(show.status).toBe(200);
    expect(show.body).toMatchObject({ action: 'action.show', status: 'info' });
    expect(show.body.data.action).toBe('email_2fa');
    expect(show.body.data.email).toBe(`${user.email[0]}***@example.com`);
    // The pending user is bound in the session under the spec's key, and not signed in.
    const session = await t.services.sessions.load(
      (await import('../../../src/core/crypto.ts')).sha256Hex(client.cookie('citadel_session')!),
    );
    expect(session?.data.auth_pending_user_id).toBe(user.id);
    expect(session?.userId).toBeNull();
    expect(JSON.stringify(session?.data)).not.toMatch(/"\d{6}"/);
  });

  it('the code from the email signs in; a second use of it fails', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    const done = await client.post('/action/handle', { code });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ action: 'action.success', status: 'success', redirect_to: '/' });
    expect(done.body.user).toMatchObject({ id: user.id, email: user.email });
    const me = await client.get('/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(user.id);

    // Used once: a new sign-in of the same user does not accept the old code.
    const second = await startLogin(t, user);
    const again = await second.client.post('/action/handle', { code });
    if (code !== second.code) {
      expect(again.status).toBe(404);
      expect(again.body.status).toBe('error');
    }
    expect((await second.client.post('/action/handle', { code: second.code })).status).toBe(200);
  });

  it('accepts `token` as an alias of `code`', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    const done = await client.post('/action/handle', { token: code });
    expect(done.body.action).toBe('action.success');
  });

  it('a wrong code is a 404; missing code is a 422', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    const wrong = await client.post('/action/handle', { code: otherCode(code) });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toMatchObject({ status: 'error', statusCode: 404 });
    const missing = await client.post('/action/handle', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.code).toBeTruthy();
    expect((await client.get('/me')).status).toBe(401);
    // Still pending: the right code works after one failure.
    expect((await client.post('/action/handle', { code })).body.action).toBe('action.success');
  });

  it('five wrong codes wipe the context: the sixth try, even the right code, finds nothing', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    for (let i = 0; i < 5; i += 1) {
      const wrong = await client.post('/action/handle', { code: otherCode(code) });
      expect(wrong.status).toBe(404);
    }
    const sixth = await client.post('/action/handle', { code });
    expect(sixth.status).toBe(401);
    expect(sixth.body.redirect_to).toBe('/login');
    expect((await client.get('/action/show')).status).toBe(401);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('four wrong codes still leave the right one usable', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    for (let i = 0; i < 4; i += 1)
      expect((await client.post('/action/handle', { code: otherCode(code) })).status).toBe(404);
    expect((await client.post('/action/handle', { code })).status).toBe(200);
  });

  it('an expired code fails (10 minutes)', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    t.clock.advance(10 * 60 + 1);
    const late = await client.post('/action/handle', { code });
    expect(late.status).toBe(404);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('a code just inside its lifetime works', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    t.clock.advance(10 * 60 - 5);
    expect((await client.post('/action/handle', { code })).status).toBe(200);
  });

  it('the pending context expires after 15 minutes', async () => {
    const user = await t.createUser();
    const { client } = await startLogin(t, user);
    t.clock.advance(9 * 60);
    const resend = await client.post('/action/challenge');
    expect(resend.status).toBe(200);
    const fresh = codeIn(await t.mail.waitFor(user.email, { count: t.mail.to(user.email).length }));
    t.clock.advance(6 * 60 + 1);
    const late = await client.post('/action/handle', { code: fresh });
    expect(late.status).toBe(401);
    expect(late.body.redirect_to).toBe('/login');
  });

  it('a resend invalidates the previous code; a second resend within 30 s is a 429', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    t.clock.advance(31);
    const resend = await client.post('/action/challenge');
    expect(resend.status).toBe(200);
    expect(resend.body).toMatchObject({
      action: 'action.challenge',
      status: 'info',
      redirect_to: '/action/show',
    });
    const fresh = codeIn(await t.mail.waitFor(user.email, { count: 2 }));

    const tooSoon = await client.post('/action/challenge');
    expect(tooSoon.status).toBe(429);
    expect(Number(tooSoon.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(tooSoon.headers['retry-after'])).toBeLessThanOrEqual(30);
    // No third mail went out.
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(2);

    if (fresh !== code) expect((await client.post('/action/handle', { code })).status).toBe(404);
    expect((await client.post('/action/handle', { code: fresh })).body.action).toBe('action.success');
  });

  it('the first resend right after sign-in is refused too (30 s from the first mail)', async () => {
    const user = await t.createUser();
    const { client } = await startLogin(t, user);
    const tooSoon = await client.post('/action/challenge');
    expect(tooSoon.status).toBe(429);
    t.clock.advance(30);
    expect((await client.post('/action/challenge')).status).toBe(200);
  });

  it('remember-me chosen at sign-in is honoured when the pipeline finishes', async () => {
    const user = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: user.email, password: TEST_PASSWORD, remember: true });
    expect(client.cookie('citadel_remember')).toBeUndefined();
    const code = codeIn(await t.mail.waitFor(user.email, { count: 1 }));
    expect((await client.post('/action/handle', { code })).status).toBe(200);
    expect(client.cookie('citadel_remember')).toBeTruthy();
  });

  it('the context is bound to its session: another browser cannot use it', async () => {
    const user = await t.createUser();
    const { code } = await startLogin(t, user);
    const stranger = t.client();
    expect((await stranger.post('/action/handle', { code })).status).toBe(401);
  });

  it('signing out wipes the pending context', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    await client.post('/logout');
    expect((await client.get('/action/show')).status).toBe(401);
    expect((await client.post('/action/handle', { code })).status).toBe(401);
  });

  it('a burst of parallel wrong codes gets no more than five checked, then the context is gone', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    const guesses = Array.from({ length: 12 }, (_, i) =>
      client.post('/action/handle', { code: otherCode(String((Number(code) + i) % 1_000_000)) }),
    );
    const results = await Promise.all(guesses);
    for (const r of results) expect([401, 404]).toContain(r.status);
    // However the session copies raced, the right code no longer works: the budget is spent.
    const right = await client.post('/action/handle', { code });
    expect([401, 404]).toContain(right.status);
    expect((await client.get('/me')).status).toBe(401);
  });

  it('the same good code sent twice at once signs in once', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    const [a, b] = await Promise.all([
      client.post('/action/handle', { code }),
      client.post('/action/handle', { code }),
    ]);
    // Exactly one wins. The other either lost the claim (404) or arrived after the winner's
    // sign-in had replaced the session it carried (401): either way it is not signed in.
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([401, 404]).toContain(statuses[1]);
    const sessions = await t.services.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toHaveLength(1);
  });

  it('malformed submissions (422) do not use up attempts', async () => {
    const user = await t.createUser();
    const { client, code } = await startLogin(t, user);
    for (let i = 0; i < 6; i += 1)
      expect((await client.post('/action/handle', { code: 'abc' })).status).toBe(422);
    for (let i = 0; i < 4; i += 1)
      expect((await client.post('/action/handle', { code: otherCode(code) })).status).toBe(404);
    expect((await client.post('/action/handle', { code })).status).toBe(200);
  });

  it('parallel resends send one new code', async () => {
    const user = await t.createUser();
    const { client } = await startLogin(t, user);
    t.clock.advance(31);
    const results = await Promise.all(Array.from({ length: 5 }, () => client.post('/action/challenge')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 429)).toHaveLength(4);
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(2);
  });

  it('codes are uniformly 6 digits including leading zeros', async () => {
    const { generateCode } = await import('../../../src/auth/pipeline/email-code.ts');
    const codes = Array.from({ length: 2000 }, generateCode);
    for (const c of codes) expect(c).toMatch(/^\d{6}$/);
    // With 2000 draws about 200 start with 0; none would mean the padding or range is wrong.
    expect(codes.filter((c) => c.startsWith('0')).length).toBeGreaterThan(100);
  });
});
