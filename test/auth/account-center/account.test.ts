import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../../support/app.ts';
import type { ClientKind } from '../../support/client.ts';
import { linkIn } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';
import { eventTypes, storedEvents } from '../../support/security-events.ts';

describe('account page and username change', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('GET /account: the user, has_password, created_at; 401 without a session', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const response = await client.get('/account');
    expect(response.body).toMatchObject({
      action: 'account.index',
      status: 'success',
      user: { id: user.id, username: user.username, email: user.email },
      data: { has_password: true, created_at: user.created_at },
    });
    expect((await t.client().get('/account')).status).toBe(401);
    const page = await client.get('/account', 'form');
    expect(page.status).toBe(200);
    for (const link of [
      '/sessions',
      '/account/events',
      '/two-factor',
      '/tokens',
      '/set-password',
      '/account/delete',
    ])
      expect(page.text).toContain(`href="${link}"`);
  });

  for (const kind of ['json', 'spa', 'form'] as ClientKind[]) {
    it(`changes the username with an event (${kind})`, async () => {
      const user = await t.createUser();
      const client = await t.signIn(user);
      const name = `Renamed ${kind} ${user.id}`;
      const response = await client.post('/account/username', { username: name }, kind);
      if (kind === 'form') {
        expect(response.status).toBe(303);
        expect(response.location).toBe('/account');
      } else {
        expect(response.body).toMatchObject({
          action: 'account.username',
          status: 'success',
          user: { username: name },
        });
      }
      expect((await client.get('/me')).body.user.username).toBe(name);
      const event = (await storedEvents(t, user.id)).find((e) => e.type === 'username_changed');
      expect(event?.detail).toEqual({ from: user.username, to: name });
    });
  }

  it('refuses a taken (any case) or invalid username with 422 and changes nothing', async () => {
    const other = await t.createUser();
    const user = await t.createUser();
    const client = await t.signIn(user);
    const taken = await client.post('/account/username', { username: other.username.toUpperCase() });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.username).toMatch(/taken/);
    for (const username of ['ab', 'no_underscores!', 'x'.repeat(31), '']) {
      const bad = await client.post('/account/username', { username });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.username).toBeDefined();
    }
    const form = await client.post('/account/username', { username: 'ab' }, 'form');
    expect(form.status).toBe(422);
    expect(form.text).toContain('value="ab"');
    expect((await client.get('/me')).body.user.username).toBe(user.username);
    expect(await eventTypes(t, user.id)).not.toContain('username_changed');
  });

  it('a form post without the CSRF token is refused and changes nothing', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const response = await client.post('/account/username', { username: 'Sneaky Name' }, 'form', {
      csrf: false,
    });
    expect(response.status).toBe(403);
    expect((await client.get('/me')).body.user.username).toBe(user.username);
  });
});

describe('email change', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  async function requestChange(kind: ClientKind = 'json') {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const newEmail = `new-${user.id}-${kind}@example.org`;
    const response = await client.post('/account/email', { email: newEmail }, kind);
    return { user, client, newEmail, response };
  }

  it('needs sudo: 403 sudo.required for JSON, a detour through /sudo for forms', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const json = await client.post('/account/email', { email: 'x@example.org' });
    expect(json.status).toBe(403);
    expect(json.body).toMatchObject({ action: 'sudo.required', redirect_to: '/sudo' });
    const form = await client.post('/account/email', { email: 'x@example.org' }, 'form', {
      headers: { referer: 'http://localhost:3000/account' },
    });
    expect(form.status).toBe(303);
    expect(form.location).toBe('/sudo?next=%2Faccount');
    expect(t.mail.to('x@example.org')).toHaveLength(0);
  });

  /** The link's path and token, from the mail to `newEmail`. */
  async function linkTo(newEmail: string) {
    const link = linkIn(
      await t.mail.waitFor(newEmail, { count: 1 }),
      'http://localhost:3000/account/email/verify/',
    );
    const path = new URL(link).pathname;
    return { link, path, token: decodeURIComponent(path.split('/').pop()!) };
  }

  for (const kind of ['json', 'spa', 'form'] as ClientKind[]) {
    it(`emails a single-use link; its page confirms with a POST in the account's session (${kind})`, async () => {
      const { user, client, newEmail, response } = await requestChange(kind);
      if (kind === 'form') expect(response.status).toBe(303);
      else
        expect(response.body).toMatchObject({
          action: 'account.email.pending',
          status: 'info',
          statusCode: 200,
        });
      const { path, token } = await linkTo(newEmail);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      const notice = await t.mail.waitFor(user.email, { count: 1 });
      expect(notice.text).toContain(newEmail);
      expect(notice.text).not.toMatch(/https?:\/\//);
      // Stored as SHA-256 only; the address has not changed yet.
      const row = await t.services.db
        .selectFrom('email_change_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(token);
      expect((await client.get('/me')).body.user.email).toBe(user.email);

      // Opening the link shows what would change, and changes nothing.
      const opened = await client.get(path, kind);
      expect(opened.status).toBe(200);
      if (kind === 'form') {
        expect(opened.text).toContain('action="/account/email/verify"');
        expect(opened.text).toContain(`name="token" value="${token}"`);
        expect(opened.text).toContain('name="_csrf"');
        expect(opened.text).toContain(newEmail);
      } else {
        expect(opened.body).toEqual({
          action: 'account.email.verify.show',
          status: 'info',
          statusCode: 200,
          message: `Confirm to change your email address to ${newEmail}.`,
          data: { new_email: newEmail },
        });
      }
      expect((await client.get('/me')).body.user.email).toBe(user.email);

      const confirmed = await client.post('/account/email/verify', { token }, kind);
      if (kind === 'form') {
        expect(confirmed.status).toBe(303);
        expect(confirmed.location).toBe('/account');
      } else {
        expect(confirmed.body).toMatchObject({
          action: 'account.email.changed',
          status: 'success',
          user: { email: newEmail },
          redirect_to: '/account',
        });
      }
      expect((await client.get('/me')).body.user.email).toBe(newEmail);
      // The link proved the new address.
      expect((await t.services.users.findById(user.id))!.email_verified_at).not.toBeNull();
      expect((await client.post('/account/email/verify', { token }, kind)).status).toBe(404);
      expect((await client.get(path, kind)).status).toBe(404);
      const events = await storedEvents(t, user.id);
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(['email_change_requested', 'email_changed']),
      );
      expect(JSON.stringify(events)).not.toContain(token);
    });
  }

  it('a form confirmation without the CSRF token is refused and changes nothing', async () => {
    const { user, client, newEmail } = await requestChange();
    const { token } = await linkTo(newEmail);
    const refused = await client.post('/account/email/verify', { token }, 'form', { csrf: false });
    expect(refused.status).toBe(403);
    expect((await t.services.users.findById(user.id))!.email).toBe(user.email);
    expect((await client.post('/account/email/verify', { token })).status).toBe(200);
  });

  it('20 parallel confirmations of one link: exactly one changes the address', async () => {
    const { user, client, newEmail } = await requestChange();
    const { token } = await linkTo(newEmail);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.post('/account/email/verify', { token })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 404)).toHaveLength(19);
    expect((await t.services.users.findById(user.id))!.email).toBe(newEmail);
    expect((await storedEvents(t, user.id)).filter((e) => e.type === 'email_changed')).toHaveLength(1);
  });

  it('expires after 60 minutes', async () => {
    const { user, client, newEmail } = await requestChange();
    const { path, token } = await linkTo(newEmail);
    t.clock.advance(60 * 60 + 1);
    expect((await client.get(path)).status).toBe(404);
    expect((await client.post('/account/email/verify', { token })).status).toBe(404);
    const page = await client.get(path, 'form');
    expect(page.status).toBe(404);
    expect(page.text).toContain('href="/account"');
    expect((await t.services.users.findById(user.id))!.email).toBe(user.email);
  });

  it('a newer request voids the older link; unknown tokens are 404', async () => {
    const { client, newEmail } = await requestChange();
    const first = await linkTo(newEmail);
    await client.post('/account/email', { email: `second-${newEmail}` });
    expect((await client.get(first.path)).status).toBe(404);
    expect((await client.post('/account/email/verify', { token: first.token })).status).toBe(404);
    expect((await client.get('/account/email/verify/nope')).status).toBe(404);
    expect((await client.post('/account/email/verify', { token: 'nope' })).status).toBe(404);
    expect((await client.post('/account/email/verify', {})).status).toBe(422);
  });

  it('an address taken at request time or meanwhile is a 409, and the address stays', async () => {
    const taken = await t.createUser();
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const refused = await client.post('/account/email', { email: taken.email.toUpperCase() });
    expect(refused.status).toBe(409);
    expect(refused.body.errors.email).toBeDefined();

    const wanted = `wanted-${user.id}@example.org`;
    await client.post('/account/email', { email: wanted });
    const { token } = await linkTo(wanted);
    await t.createUser({ email: wanted });
    const conflict = await client.post('/account/email/verify', { token });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ action: 'account.email.changed', status: 'error' });
    expect((await t.services.users.findById(user.id))!.email).toBe(user.email);
  });

  it('refuses the current address and malformed ones with 422', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    expect((await client.post('/account/email', { email: user.email })).status).toBe(422);
    expect((await client.post('/account/email', { email: 'not an address' })).status).toBe(422);
  });

  it('the change voids reset and sign-in links sent to the old address', async () => {
    const { user, client, newEmail } = await requestChange();
    await t.client().post('/forgot-password', { email: user.email });
    await t.mail.waitFor(user.email, { count: 2 });
    const resetMail = t.mail.to(user.email).find((m) => m.text.includes('/reset-password'))!;
    const reset = linkIn(resetMail, 'http://localhost:3000/reset-password');
    const { token } = await linkTo(newEmail);
    expect((await client.post('/account/email/verify', { token })).status).toBe(200);
    const resetToken = new URL(reset).searchParams.get('token')!;
    const used = await t.client().post('/reset-password', {
      token: resetToken,
      password: 'a brand new passphrase',
      password_confirm: 'a brand new passphrase',
    });
    expect(used.status).toBe(422);
  });
});

describe('account deletion', () => {
  let t: TestApp;
  const deleted: number[] = [];
  let failNext = false;
  beforeAll(async () => {
    t = await startTestApp({
      onUserDeleted: async (user, { db }) => {
        // Runs inside the deletion's transaction: the user is already gone there.
        const stillThere = await db
          .selectFrom('users')
          .select('id')
          .where('id', '=', user.id)
          .executeTakeFirst();
        expect(stillThere).toBeUndefined();
        if (failNext) throw new Error('the application refused');
        deleted.push(user.id);
      },
    });
  });
  afterAll(async () => t?.close());

  async function richUser() {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const token = (await client.post('/tokens', { name: 'ci' })).body.token as string;
    const other = await t.signIn(user);
    await client.post('/account/username', { username: `Doomed ${user.id}` });
    return { user, client, token, other };
  }

  it('needs sudo', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const response = await client.post('/account/delete');
    expect(response.status).toBe(403);
    expect(response.body.action).toBe('sudo.required');
    expect(await t.services.users.findById(user.id)).toBeDefined();
  });

  for (const kind of ['json', 'spa', 'form'] as ClientKind[]) {
    it(`deletes the user and everything of theirs, calls the hook, keeps an audit row (${kind})`, async () => {
      const { user, client, token, other } = await richUser();
      const response = await client.post('/account/delete', {}, kind);
      if (kind === 'form') {
        expect(response.status).toBe(303);
        expect(response.location).toBe('/');
      } else {
        expect(response.body).toMatchObject({
          action: 'account.deleted',
          status: 'success',
          redirect_to: '/',
        });
      }
      expect(deleted).toContain(user.id);
      expect(await t.services.users.findById(user.id)).toBeUndefined();
      for (const table of [
        'sessions',
        'remember_tokens',
        'personal_access_tokens',
        'email_change_tokens',
      ] as const) {
        const rows = await t.services.db
          .selectFrom(table)
          .select('user_id')
          .where('user_id', '=', user.id)
          .execute();
        expect(rows, table).toHaveLength(0);
      }
      expect((await client.get('/me')).status).toBe(401);
      expect((await other.get('/me')).status).toBe(401);
      expect((await t.client().get('/me', 'json', { token })).status).toBe(401);
      expect(await storedEvents(t, user.id)).toHaveLength(0);
      const audit = (await storedEvents(t, null)).filter(
        (e) => e.type === 'account_deleted' && e.detail.user_id === user.id,
      );
      expect(audit).toHaveLength(1);
    });
  }

  it('a failing hook rolls the whole deletion back', async () => {
    const { user, client } = await richUser();
    failNext = true;
    try {
      const response = await client.post('/account/delete');
      expect(response.status).toBe(500);
      expect(response.text).not.toContain('the application refused');
    } finally {
      failNext = false;
    }
    expect(await t.services.users.findById(user.id)).toBeDefined();
    expect((await client.get('/me')).status).toBe(200);
    expect((await storedEvents(t, null)).filter((e) => e.detail.user_id === user.id)).toHaveLength(0);
  });
});
