import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { codeIn, linkIn, type CapturedMail } from '../../support/mail.ts';
import { sha256Hex } from '../../../src/core/crypto.ts';

const VERIFY_PREFIX = 'http://localhost:3000/magic-link/verify/';

describe('magic links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  /** Ask for a link and return the token from the real email. */
  async function requestLink(email: string): Promise<string> {
    // Only sign-in links count: a new-device notice of an earlier sign-in may arrive in between.
    const match = (mail: CapturedMail) => mail.text.includes(VERIFY_PREFIX);
    const count = t.mail.to(email).filter(match).length + 1;
    const res = await t.client().post('/magic-link', { email });
    expect(res.status).toBe(200);
    const mail = await t.mail.waitFor(email, { count, match });
    return linkIn(mail, VERIFY_PREFIX).slice(VERIFY_PREFIX.length);
  }

  it('POST /magic-link answers the same for a known and an unknown address; no mail for the unknown', async () => {
    const user = await t.createUser();
    const known = await t.client().post('/magic-link', { email: user.email });
    const unknown = await t.client().post('/magic-link', { email: 'nobody-here@example.com' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    expect(known.body).toMatchObject({
      action: 'magic_link.send',
      status: 'success',
      redirect_to: '/magic-link',
    });
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(1);
    expect(t.mail.to('nobody-here@example.com')).toHaveLength(0);
  });

  it('validates the address (422)', async () => {
    const res = await t.client().post('/magic-link', { email: 'not-an-address' });
    expect(res.status).toBe(422);
    expect(res.body.errors.email).toBeTruthy();
  });

  it('the token is stored only as its SHA-256', async () => {
    const user = await t.createUser();
    const token = await requestLink(user.email);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await t.services.db
      .selectFrom('magic_link_tokens')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('path form signs in (JSON); a second use is a 404', async () => {
    const user = await t.createUser();
    const token = await requestLink(user.email);
    const client = t.client();
    const res = await client.get(`/magic-link/verify/${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ action: 'magic_link.verify', status: 'success', redirect_to: '/' });
    expect(res.body.user.id).toBe(user.id);
    expect((await client.get('/me')).body.user.id).toBe(user.id);

    const again = await t.client().get(`/magic-link/verify/${token}`);
    expect(again.status).toBe(404);
    expect(again.body.status).toBe('error');
  });

  it('query form signs in; a browser gets a 303 to the landing page', async () => {
    const user = await t.createUser();
    const token = await requestLink(user.email);
    const browser = t.client();
    const res = await browser.get(`/magic-link/verify?token=${encodeURIComponent(token)}`, 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/');
    expect((await browser.get('/me')).body.user.id).toBe(user.id);
  });

  it('an expired link is a 404 (15 minutes)', async () => {
    const user = await t.createUser();
    const token = await requestLink(user.email);
    t.clock.advance(15 * 60 + 1);
    const res = await t.client().get(`/magic-link/verify/${token}`);
    expect(res.status).toBe(404);
  });

  it('unknown and missing tokens are 404', async () => {
    expect((await t.client().get('/magic-link/verify/not-a-token')).status).toBe(404);
    expect((await t.client().get('/magic-link/verify')).status).toBe(404);
    expect((await t.client().get(`/magic-link/verify?token=${'x'.repeat(500)}`)).status).toBe(404);
  });

  it('two concurrent verifications of one token: exactly one signs in', async () => {
    const user = await t.createUser();
    for (let round = 0; round < 3; round += 1) {
      const token = await requestLink(user.email);
      const clients = Array.from({ length: 4 }, () => t.client());
      const results = await Promise.all(clients.map((c) => c.get(`/magic-link/verify/${token}`)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 404, 404, 404]);
      const signedIn = await Promise.all(clients.map(async (c) => (await c.get('/me')).status));
      expect(signedIn.filter((s) => s === 200)).toHaveLength(1);
    }
  });

  it('a disabled account gets no link', async () => {
    const user = await t.createUser({ active: false });
    await t.client().post('/magic-link', { email: user.email });
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(0);
  });

  it('sends are limited per address (5 per hour)', async () => {
    const user = await t.createUser();
    for (let i = 0; i < 5; i += 1)
      expect((await t.client().post('/magic-link', { email: user.email })).status).toBe(200);
    const sixth = await t.client().post('/magic-link', { email: user.email });
    expect(sixth.status).toBe(429);
    expect(sixth.headers['retry-after']).toBeTruthy();
  });

  it('GET /magic-link shows the request form; a form post lands on the check-your-email page', async () => {
    const browser = t.client();
    const page = await browser.get('/magic-link', 'form');
    expect(page.status).toBe(200);
    expect(page.text).toContain('action="/magic-link"');
    const sent = await browser.post('/magic-link', { email: 'someone@example.com' }, 'form');
    expect(sent.status).toBe(303);
    expect(sent.location).toBe('/magic-link/sent');
    const check = await browser.get('/magic-link/sent', 'form');
    expect(check.status).toBe(200);
    expect(check.text).toContain('Check your email');
  });
});

describe('magic links with email_2fa configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: ['email_2fa'] });
  });
  afterAll(async () => t?.close());

  it('the link leads into the pipeline, the code finishes the sign-in', async () => {
    const user = await t.createUser();
    await t.client().post('/magic-link', { email: user.email });
    const link = linkIn(await t.mail.waitFor(user.email, { count: 1 }), VERIFY_PREFIX);
    const token = link.slice(VERIFY_PREFIX.length);

    const client = t.client();
    const res = await client.get(`/magic-link/verify/${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'info', redirect_to: '/action/show' });
    expect(res.body.user).toBeUndefined();
    expect((await client.get('/me')).status).toBe(401);
    expect((await client.get('/action/show')).body.data.action).toBe('email_2fa');

    const code = codeIn(await t.mail.waitFor(user.email, { count: 2 }));
    const done = await client.post('/action/handle', { code });
    expect(done.body.action).toBe('action.success');
    expect((await client.get('/me')).body.user.id).toBe(user.id);
  });

  it('a browser following the link is sent to /action/show', async () => {
    const user = await t.createUser();
    await t.client().post('/magic-link', { email: user.email });
    const link = linkIn(await t.mail.waitFor(user.email, { count: 1 }), VERIFY_PREFIX);
    const browser = t.client();
    const res = await browser.get(`/magic-link/verify/${link.slice(VERIFY_PREFIX.length)}`, 'form');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/action/show');
  });
});

describe('magic links in the logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      logger: undefined,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('neither the path nor the query form of a token is logged', async () => {
    const user = await t.createUser();
    await t.client().post('/magic-link', { email: user.email });
    const first = linkIn(await t.mail.waitFor(user.email, { count: 1 }), VERIFY_PREFIX).slice(
      VERIFY_PREFIX.length,
    );
    await t.client().post('/magic-link', { email: user.email });
    const second = linkIn(await t.mail.waitFor(user.email, { count: 2 }), VERIFY_PREFIX).slice(
      VERIFY_PREFIX.length,
    );
    expect((await t.client().get(`/magic-link/verify/${first}`)).status).toBe(200);
    expect((await t.client().get(`/magic-link/verify?token=${second}`)).status).toBe(200);
    const log = lines.join('\n');
    expect(log).toContain('/magic-link/verify');
    expect(log).not.toContain(first);
    expect(log).not.toContain(second);
  });
});
