/**
 * ADMIN_EMAILS: an account is an administrator once its address is listed AND proved
 * (`email_verified_at`), whenever that happens: at start for accounts that have proved it, and at
 * the moment an account proves it later (magic link, email change, …). A listed address that is
 * not proved gives nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { linkIn } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';

const tag = `${process.pid}${Date.now()}`;
const LISTED = `listed${tag}@example.com`;
const MOVING_TO = `moving${tag}@example.com`;

describe('ADMIN_EMAILS', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { ADMIN_EMAILS: `${LISTED.toUpperCase()}, ${MOVING_TO}` } });
  });
  afterAll(async () => t?.close());

  it('registering a listed address gives nothing; proving it (magic link) makes an admin at once', async () => {
    const client = t.client();
    const registered = await client.post('/register', {
      username: `listed${tag}`,
      email: LISTED,
      password: TEST_PASSWORD,
      password_confirm: TEST_PASSWORD,
    });
    expect(registered.status, registered.text).toBe(201);
    const user = (await t.services.users.findByEmail(LISTED))!;
    expect(user.email_verified_at).toBeNull();
    expect(user.role).toBe('user');
    expect((await client.get('/admin/users')).status).toBe(403);

    const count = t.mail.to(LISTED).length + 1;
    expect((await client.post('/magic-link', { email: LISTED })).status).toBe(200);
    const prefix = 'http://localhost:3000/magic-link/verify/';
    const link = linkIn(await t.mail.waitFor(LISTED, { count }), prefix);
    const verified = await client.get(`/magic-link/verify/${link.slice(prefix.length)}`);
    expect(verified.status, verified.text).toBe(200);
    expect((await t.services.users.findById(user.id))!.role).toBe('admin');
    expect((await client.get('/admin/users')).status).toBe(200);
  });

  it('an email change confirmed to a listed address makes an admin; to another address, nothing', async () => {
    const plain = await t.createUser({ emailVerified: true });
    const moving = await t.createUser({ emailVerified: true });
    expect(moving.role).toBe('user');
    for (const [user, to] of [
      [plain, `plain${tag}@example.com`],
      [moving, MOVING_TO],
    ] as const) {
      const client = await t.signIn(user);
      await elevate(client);
      expect((await client.post('/account/email', { email: to })).status).toBe(200);
      const link = linkIn(
        await t.mail.waitFor(to, { count: 1 }),
        'http://localhost:3000/account/email/verify/',
      );
      const token = decodeURIComponent(new URL(link).pathname.split('/').pop()!);
      const confirmed = await client.post('/account/email/verify', { token });
      expect(confirmed.status, confirmed.text).toBe(200);
    }
    expect((await t.services.users.findById(plain.id))!.role).toBe('user');
    expect((await t.services.users.findById(moving.id))!.role).toBe('admin');
  });

  it('at start: listed and proved accounts are admins; listed but unproved, or proved but unlisted, are not', async () => {
    const proved = await t.createUser({ emailVerified: true });
    const unproved = await t.createUser();
    const unlisted = await t.createUser({ emailVerified: true });
    const second = await startTestApp({
      env: { ADMIN_EMAILS: ` ${proved.email.toUpperCase()},${unproved.email} nobody@example.com` },
      sharedDatabase: t.database,
      sharedMail: t.mail,
    });
    try {
      expect((await second.services.users.findById(proved.id))!.role).toBe('admin');
      expect((await second.services.users.findById(unproved.id))!.role).toBe('user');
      expect((await second.services.users.findById(unlisted.id))!.role).toBe('user');
      // The unproved one becomes an admin when it proves its address, on this server too.
      await second.services.users.markEmailVerified(unproved.id);
      expect((await second.services.users.findById(unproved.id))!.role).toBe('admin');
    } finally {
      await second.close();
    }
  });
});
