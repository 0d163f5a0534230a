/**
 * Contract section 15: each built-in is a factory with typed options, and its options are what it
 * runs with. Options given to the factory win over the environment variables of section 2, which
 * still feed them when no option is given (and so do the `limits` of earlier versions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, defaultPlugins, magicLink, password, pipeline, sudo, tokens } from '../../src/index.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { linkIn, type CapturedMail } from '../support/mail.ts';
import { sudoOptions } from '../../src/auth/sudo/options.ts';

const VERIFY_PREFIX = 'http://localhost:3000/magic-link/verify/';
const RESET_PREFIX = 'http://localhost:3000/reset-password?token=';

async function requestLink(t: TestApp, email: string): Promise<{ token: string; mail: CapturedMail }> {
  const match = (mail: CapturedMail) => mail.text.includes(VERIFY_PREFIX);
  const count = t.mail.to(email).filter(match).length + 1;
  expect((await t.client().post('/magic-link', { email })).status).toBe(200);
  const mail = await t.mail.waitFor(email, { count, match });
  return { token: linkIn(mail, VERIFY_PREFIX).slice(VERIFY_PREFIX.length), mail };
}

async function requestReset(t: TestApp, email: string): Promise<{ token: string; mail: CapturedMail }> {
  const match = (mail: CapturedMail) => mail.text.includes(RESET_PREFIX);
  const count = t.mail.to(email).filter(match).length + 1;
  expect((await t.client().post('/forgot-password', { email })).status).toBe(200);
  const mail = await t.mail.waitFor(email, { count, match });
  return { token: new URL(linkIn(mail, RESET_PREFIX)).searchParams.get('token')!, mail };
}

/** Sudo's expiry as the server answers it, for a fresh elevation of a new user. */
async function elevate(t: TestApp) {
  const client = await t.signIn(await t.createUser());
  const verify = await client.post('/sudo/verify', { factor: 'password', proof: TEST_PASSWORD });
  expect(verify.status, verify.text).toBe(200);
  const lifetime = (Date.parse(verify.body.data.expires_at) - t.clock.now().getTime()) / 1000;
  return { client, lifetime };
}

describe("options given to the built-ins' factories", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      // SUDO_TTL says 600; the option given to the factory wins.
      env: { SUDO_TTL: '600' },
      plugins: defaultPlugins({
        magicLink: { ttlSeconds: 120 },
        sudo: { ttlSeconds: 60 },
        accounts: { resetTokenTtlSeconds: 300 },
      }),
    });
  });
  afterAll(async () => t?.close());

  it('magicLink({ ttlSeconds }): the email says it, and the link stops working after it', async () => {
    const user = await t.createUser();
    const { token, mail } = await requestLink(t, user.email);
    expect(mail.text).toContain('within 2 minutes');
    const page = await t.client().get('/magic-link/sent', 'form');
    expect(page.text).toContain('for 2 minutes');
    t.clock.advance(121);
    expect((await t.client().get(`/magic-link/verify/${token}`)).status).toBe(404);

    const fresh = await requestLink(t, user.email);
    t.clock.advance(115);
    const signedIn = await t.client().get(`/magic-link/verify/${fresh.token}`);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.user.id).toBe(user.id);
  });

  it('sudo({ ttlSeconds }) wins over SUDO_TTL: sudo lasts 60 seconds', async () => {
    const { client, lifetime } = await elevate(t);
    expect(lifetime).toBe(60);
    t.clock.advance(55);
    expect((await client.get('/sudo')).body.data.active).toBe(true);
    t.clock.advance(6);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
  });

  it('accounts({ resetTokenTtlSeconds }): the reset link works 5 minutes', async () => {
    const user = await t.createUser();
    const late = await requestReset(t, user.email);
    expect(late.mail.text).toContain('within 5 minutes');
    t.clock.advance(301);
    const NEW = 'another horse battery staple';
    const refused = await t.client().post('/reset-password', {
      token: late.token,
      password: NEW,
      password_confirm: NEW,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.token).toMatch(/invalid or has expired/);

    const inTime = await requestReset(t, user.email);
    t.clock.advance(290);
    const reset = await t.client().post('/reset-password', {
      token: inTime.token,
      password: NEW,
      password_confirm: NEW,
    });
    expect(reset.status, reset.text).toBe(200);
  });
});

describe("environment variables feed the built-ins' options", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { SUDO_TTL: '30' } });
  });
  afterAll(async () => t?.close());

  it('SUDO_TTL becomes sudo’s ttlSeconds', async () => {
    expect(sudoOptions(t.services).ttlSeconds).toBe(30);
    const { client, lifetime } = await elevate(t);
    expect(lifetime).toBe(30);
    t.clock.advance(31);
    expect((await client.get('/sudo')).body.data.active).toBe(false);
  });
});

describe('a full plugin list with factories', () => {
  let t: TestApp;
  beforeAll(async () => {
    // `plugins` is the full list: built-ins by their factories, in any order that keeps dependencies.
    t = await startTestApp({
      plugins: [accounts(), pipeline(), sudo({ ttlSeconds: 90 }), password(), tokens(), magicLink()],
    });
  });
  afterAll(async () => t?.close());

  it('serves those plugins with their options, and not the others', async () => {
    // Without the factors plugin there is nothing to prove: sudo starts at sign-in, for 90 seconds.
    const client = await t.signIn(await t.createUser());
    const state = (await client.get('/sudo')).body.data;
    expect(state.active).toBe(true);
    expect((Date.parse(state.expires_at) - t.clock.now().getTime()) / 1000).toBe(90);
    expect((await t.client().get('/magic-link', 'json')).status).toBe(200);
    expect((await t.client().get('/oauth/github')).status).toBe(404);
    expect((await t.client().get('/account', 'form')).status).toBe(404);
  });
});
