import { accountSettings } from '../../../src/auth/core/account-settings.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import type { ClientKind } from '../../support/client.ts';
import { linkIn, type CapturedMail } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';
import { enrollTotp, totpCode } from '../../support/factors.ts';
import { recordSecurityEvent, sweepSecurityEvents } from '../../../src/auth/core/security-events.ts';
import { eventTypes, FIREFOX_LINUX, SAFARI_IPHONE, storedEvents } from '../../support/security-events.ts';

const NEW_PASSWORD = 'a completely new passphrase';

function noLinks(mail: CapturedMail) {
  expect(mail.text).not.toMatch(/https?:\/\//);
  expect(mail.html).not.toMatch(/<a\s/i);
}

describe('security events on every path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('sign_in with the device; sign_in_failed only for a known account; sign_out', async () => {
    const user = await t.createUser();
    const client = t.client();
    await client.post('/login', { email: user.email, password: 'wrong password' }, 'json', {
      headers: { 'user-agent': FIREFOX_LINUX },
    });
    await t.client().post('/login', { email: 'nobody@example.com', password: 'wrong password' });
    await client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
      headers: { 'user-agent': FIREFOX_LINUX },
    });
    await client.post('/logout');
    // sign_in_failed is written after the answer (equal timing for unknown accounts): wait for it.
    await expect.poll(() => eventTypes(t, user.id)).toEqual(['sign_in_failed', 'sign_in', 'sign_out']);
    const events = await storedEvents(t, user.id);
    expect(events[1]).toMatchObject({
      user_agent: FIREFOX_LINUX,
      detail: { device: 'Firefox on Linux', method: 'sign_in' },
    });
    expect(events[0]!.ip).toBeTruthy();
    const unknown = await t.services.db
      .selectFrom('security_events')
      .select('id')
      .where('user_id', 'is', null)
      .execute();
    expect(unknown).toHaveLength(0);
  });

  it('password_changed (set-password, in sudo) and password_reset, each with a notification', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const set = await client.post('/set-password', {
      password: NEW_PASSWORD,
      password_confirm: NEW_PASSWORD,
    });
    expect(set.status).toBe(200);
    const changed = await t.mail.waitFor(user.email, { count: 1 });
    expect(changed.subject).toMatch(/password was changed/i);
    noLinks(changed);

    await t.client().post('/forgot-password', { email: user.email });
    const resetMail = await t.mail.waitFor(user.email, { count: 2 });
    const token = new URL(linkIn(resetMail, 'http://localhost:3000/reset-password')).searchParams.get(
      'token',
    )!;
    const reset = await t
      .client()
      .post('/reset-password', { token, password: TEST_PASSWORD, password_confirm: TEST_PASSWORD });
    expect(reset.status).toBe(200);
    const notice = await t.mail.waitFor(user.email, { count: 3 });
    expect(notice.subject).toMatch(/reset/i);
    noLinks(notice);
    const types = await eventTypes(t, user.id);
    expect(types).toEqual(expect.arrayContaining(['password_changed', 'password_reset', 'sudo_elevated']));
    const all = JSON.stringify(await storedEvents(t, user.id));
    for (const secret of [token, NEW_PASSWORD, TEST_PASSWORD]) expect(all).not.toContain(secret);
  });

  it('token_created (with a notification) and token_revoked, never the token itself', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    const created = await client.post('/tokens', { name: 'deploy bot', abilities: ['posts:read'] });
    const mail = await t.mail.waitFor(user.email, { count: 1 });
    expect(mail.subject).toMatch(/token/i);
    expect(mail.text).toContain('deploy bot');
    expect(mail.text).not.toContain(created.body.token);
    noLinks(mail);
    expect((await client.delete(`/tokens/${created.body.token_id}`)).status).toBe(200);
    expect((await client.delete(`/tokens/${created.body.token_id}`)).status).toBe(404);
    const events = await storedEvents(t, user.id);
    expect(events.filter((e) => e.type === 'token_created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'token_revoked')).toHaveLength(1);
    expect(events.find((e) => e.type === 'token_created')!.detail).toMatchObject({
      name: 'deploy bot',
      abilities: 'posts:read',
    });
    expect(JSON.stringify(events)).not.toContain(created.body.token);
  });

  it('factor_enrolled, recovery_codes_regenerated, factor_removed, with notifications and no codes', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const { secret, recoveryCodes } = await enrollTotp(t, client);
    const enrolled = await t.mail.waitFor(user.email, { count: 1 });
    expect(enrolled.subject).toMatch(/added/);
    noLinks(enrolled);
    const regenerated = await client.post('/two-factor/recovery-codes');
    expect(regenerated.status).toBe(200);
    expect((await client.post('/two-factor/unenroll', { factor: 'totp' })).status).toBe(200);
    const removed = await t.mail.waitFor(user.email, { count: 2 });
    expect(removed.subject).toMatch(/removed/);
    const events = await storedEvents(t, user.id);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['factor_enrolled', 'recovery_codes_regenerated', 'factor_removed']),
    );
    const all = JSON.stringify(events);
    for (const code of [
      ...(recoveryCodes ?? []),
      ...(regenerated.body.data.recovery_codes as string[]),
      secret,
      totpCode(t, secret),
    ])
      expect(all).not.toContain(code);
  });

  it('a new device is announced by mail; a known one and the first sign-in are not', async () => {
    const user = await t.createUser();
    // A device is a browser (its device cookie), so the laptop keeps one client.
    const laptop = t.client();
    const signIn = (ua: string, client = laptop) =>
      client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
        headers: { 'user-agent': ua },
      });
    await signIn(FIREFOX_LINUX);
    await signIn(FIREFOX_LINUX);
    await signIn(SAFARI_IPHONE, t.client());
    const mail = await t.mail.waitFor(user.email, { count: 1 });
    expect(mail.subject).toMatch(/new sign-in/i);
    expect(mail.text).toContain('Safari on iOS');
    noLinks(mail);
    // 91 days later the laptop counts as new again.
    t.clock.advance(91 * 24 * 60 * 60);
    await signIn(FIREFOX_LINUX);
    expect((await t.mail.waitFor(user.email, { count: 2 })).text).toContain('Firefox on Linux');
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(2);
  });
});

describe('GET /account/events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('pages newest first with the contract fields', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1);
      await recordSecurityEvent(t.services.db, t.clock, {
        userId: user.id,
        type: 'username_changed',
        detail: { n: i },
      });
    }
    const first = await client.get('/account/events?limit=2');
    expect(first.body).toMatchObject({ action: 'events.index', status: 'success' });
    expect(first.body.data.pagination).toMatchObject({
      page: 1,
      limit: 2,
      total: 6,
      totalPages: 3,
      hasMore: true,
      nextPage: 2,
    });
    expect(first.body.data.events.map((e: { detail: { n?: number } }) => e.detail.n)).toEqual([4, 3]);
    expect(Object.keys(first.body.data.events[0]).sort()).toEqual([
      'created_at',
      'detail',
      'id',
      'ip',
      'label',
      'type',
      'user_agent',
    ]);
    // The label the type's declaration gives (the account center's `events`).
    expect(first.body.data.events[0].label).toBe('Username changed');
    const last = await client.get('/account/events?limit=2&page=3');
    expect(last.body.data.events.map((e: { type: string }) => e.type)).toEqual([
      'username_changed',
      'sign_in',
    ]);
    expect(last.body.data.pagination).toMatchObject({ hasMore: false, nextPage: null, prevPage: 2 });
    expect((await client.get('/account/events?limit=1000')).body.data.pagination.limit).toBe(100);
    for (const bad of ['page=0', 'page=x', 'limit=-1'])
      expect((await client.get(`/account/events?${bad}`)).status).toBe(422);
  });

  for (const kind of ['spa', 'form'] as ClientKind[]) {
    it(`answers ${kind} clients`, async () => {
      const user = await t.createUser();
      const client = await t.signIn(user);
      const response = await client.get('/account/events', kind);
      expect(response.status).toBe(200);
      if (kind === 'form') expect(response.text).toContain('Signed in');
      else expect(response.body.data.events[0].type).toBe('sign_in');
    });
  }

  it("shows only the caller's own events; tokens need events:read", async () => {
    const alice = await t.createUser();
    const bob = await t.createUser();
    const aliceClient = await t.signIn(alice);
    await t.signIn(bob);
    const events = (await aliceClient.get('/account/events')).body.data.events;
    expect(events).toHaveLength(1);
    await elevate(aliceClient);
    const narrow = (await aliceClient.post('/tokens', { name: 'n', abilities: ['sessions:read'] })).body
      .token;
    const reader = (await aliceClient.post('/tokens', { name: 'r', abilities: ['events:read'] })).body.token;
    expect((await t.client().get('/account/events', 'json', { token: narrow })).status).toBe(403);
    expect((await t.client().get('/account/events', 'json', { token: reader })).status).toBe(200);
    expect((await t.client().get('/account/events')).status).toBe(401);
  });

  it('the retention sweep removes events older than the configured days', async () => {
    const user = await t.createUser();
    const now = t.clock.now().getTime();
    const day = 24 * 60 * 60 * 1000;
    await recordSecurityEvent(t.services.db, t.clock, {
      userId: user.id,
      type: 'sign_out',
      at: new Date(now - 181 * day),
    });
    await recordSecurityEvent(t.services.db, t.clock, {
      userId: user.id,
      type: 'sign_in',
      at: new Date(now - 179 * day),
    });
    expect(t.services.config.eventRetentionDays).toBe(180);
    expect(
      await sweepSecurityEvents(t.services.db, t.clock, t.services.config.eventRetentionDays),
    ).toBeGreaterThanOrEqual(1);
    expect(await eventTypes(t, user.id)).toEqual(['sign_in']);
  });
});

describe('NOTIFY_EVENTS turns notifications off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { NOTIFY_EVENTS: 'new_device' } });
  });
  afterAll(async () => t?.close());

  it('sends none of the others, still records the events', async () => {
    expect(accountSettings(t.services.config).notifyEvents).toEqual(['new_device']);
    const user = await t.createUser();
    const client = await t.signIn(user);
    await elevate(client);
    await client.post('/tokens', { name: 'quiet' });
    await client.post('/set-password', { password: NEW_PASSWORD, password_confirm: NEW_PASSWORD });
    await t.mail.settled();
    expect(t.mail.to(user.email)).toHaveLength(0);
    expect(await eventTypes(t, user.id)).toEqual(
      expect.arrayContaining(['token_created', 'password_changed']),
    );
  });
});
