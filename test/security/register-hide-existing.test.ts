import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { loadConfig } from '../../src/config/load.ts';

/**
 * Issue 13 item 13b: with REGISTER_HIDE_EXISTING (and email_activation), registering an address
 * that already has an account answers exactly like a new registration and mails the owner
 * instead of creating anything.
 */
const PASSWORD = 'a-long-secret-pw';

async function countUsers(t: TestApp): Promise<number> {
  const row = await t.services.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('REGISTER_HIDE_EXISTING', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ registerActions: ['email_activation'], registerHideExisting: true });
  });
  afterAll(async () => t?.close());

  const register = (username: string, email: string, kind: 'json' | 'form' = 'json', password = PASSWORD) =>
    t.client().post('/register', { username, email, password, password_confirm: password }, kind);

  it('answers a known address with the same status, headers and body as a new one, and mails its owner', async () => {
    const owner = await t.createUser({ username: 'owner hidden', email: 'owner@example.com' });
    const users = await countUsers(t);

    const fresh = await register('newcomer', 'newcomer@example.com');
    const known = await register('intruder', 'Owner@Example.com');

    expect(known.status).toBe(fresh.status);
    expect(known.body).toEqual(fresh.body);
    expect(known.body).toEqual({
      action: 'register.action_required',
      status: 'info',
      statusCode: 200,
      message: 'Your account was created. One more step is needed to activate it.',
      redirect_to: '/action/show',
    });
    for (const header of ['content-type', 'cache-control', 'set-cookie'] as const)
      expect(typeof known.headers[header], header).toBe(typeof fresh.headers[header]);

    // Exactly one new account (the newcomer's); the owner's account is untouched.
    expect(await countUsers(t)).toBe(users + 1);
    expect(await t.services.users.findByUsername('intruder')).toBeUndefined();
    const after = await t.services.users.findById(owner.id);
    expect(after?.password_hash).toBe(owner.password_hash);

    const notice = await t.mail.waitFor('owner@example.com', {
      count: 1,
      match: (mail) => mail.subject.endsWith('Someone tried to register with your address'),
    });
    expect(notice.text).toContain('owner hidden');
    expect(notice.text).not.toMatch(/https?:\/\//);
    expect(notice.text).not.toMatch(/\b\d{6}\b/);
    // The newcomer got the activation code, as always.
    await t.mail.waitFor('newcomer@example.com', { count: 1, match: (mail) => /\b\d{6}\b/.test(mail.text) });
  });

  it('a browser gets the same redirect for both', async () => {
    await t.createUser({ username: 'owner form', email: 'ownerform@example.com' });
    const fresh = await register('formcomer', 'formcomer@example.com', 'form');
    const known = await register('formintruder', 'ownerform@example.com', 'form');
    expect(known.status).toBe(303);
    expect(fresh.status).toBe(303);
    expect(known.location).toBe(fresh.location);
  });

  it('still reports an invalid password the same way for both (validation runs first)', async () => {
    await t.createUser({ username: 'owner short', email: 'ownershort@example.com' });
    const fresh = await register('shortnew', 'shortnew@example.com', 'json', 'short');
    const known = await register('shortknown', 'ownershort@example.com', 'json', 'short');
    expect(fresh.status).toBe(422);
    expect(known.status).toBe(422);
    expect(Object.keys(known.body.errors)).toEqual(Object.keys(fresh.body.errors));
    expect(known.body.errors.email).toBeUndefined();
  });

  it('takes the same time class: a known address still pays for a password hash', async () => {
    await t.createUser({ username: 'owner timing', email: 'ownertiming@example.com' });
    const hashes: string[] = [];
    const original = t.services.passwords.hash.bind(t.services.passwords);
    t.services.passwords.hash = async (password: string) => {
      hashes.push(password);
      return original(password);
    };
    try {
      await register('timingknown', 'ownertiming@example.com', 'json', 'timing-password-1');
    } finally {
      t.services.passwords.hash = original;
    }
    expect(hashes).toEqual(['timing-password-1']);
  });
});

describe('without REGISTER_HIDE_EXISTING', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ registerActions: ['email_activation'] });
  });
  afterAll(async () => t?.close());

  it('says the address is registered (the default) and sends no notice', async () => {
    await t.createUser({ username: 'owner plain', email: 'plain@example.com' });
    const known = await t.client().post('/register', {
      username: 'plainnew',
      email: 'plain@example.com',
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    expect(known.status).toBe(422);
    expect(known.body.errors.email).toBe('This email address is already registered.');
  });

  it('REGISTER_HIDE_EXISTING=1 without email_activation is a configuration error', () => {
    const base = { sessionSecret: 'x'.repeat(40) };
    expect(() => loadConfig({ ...base, env: { REGISTER_HIDE_EXISTING: '1' } })).toThrow(/email_activation/);
    expect(
      loadConfig({ ...base, env: { REGISTER_HIDE_EXISTING: '1', AUTH_REGISTER_ACTIONS: 'email_activation' } })
        .registerHideExisting,
    ).toBe(true);
  });
});
