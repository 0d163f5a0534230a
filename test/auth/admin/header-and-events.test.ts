/**
 * Issue 24: the header's "Admin" link (administrators acting as themselves, on a server that serves
 * the users list) and the account center's words for the admin events (contract section 18).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../../support/app.ts';
import { elevate } from '../../support/sudo.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import { defaultPlugins } from '../../../src/auth/index.ts';

const ADMIN_LINK = '<a class="admin-link" href="/admin/users">Admin</a>';

function header(text: string): string {
  return /<header class="site-header">([\s\S]*?)<\/header>/.exec(text)?.[1] ?? '';
}

function main(text: string): string {
  return /<main>([\s\S]*)<\/main>/.exec(text)?.[1] ?? '';
}

describe('the header "Admin" link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('an admin sees it on every page; a normal user and a visitor do not', async () => {
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    for (const path of ['/', '/account', '/tokens', '/admin/users']) {
      const page = await admin.get(path, 'form');
      expect(page.status, path).toBe(200);
      expect(header(page.text), path).toContain(ADMIN_LINK);
    }
    const user = await t.signIn(await t.createUser());
    const userPage = await user.get('/account', 'form');
    expect(userPage.status).toBe(200);
    expect(userPage.text).not.toContain('href="/admin/users"');
    const visitor = await t.client().get('/login', 'form');
    expect(visitor.text).not.toContain('href="/admin/users"');
  });

  it('is gone while the admin acts as a user, and back after "Stop"', async () => {
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    const target = await t.createUser();
    await elevate(admin);
    expect((await admin.post(`/admin/users/${target.id}/impersonate`, {})).status).toBe(200);
    for (const path of ['/', '/account']) {
      const page = await admin.get(path, 'form');
      expect(page.text, path).toContain('class="impersonation"');
      expect(page.text, path).not.toContain('href="/admin/users"');
    }
    expect((await admin.post('/admin/impersonation/stop', {})).status).toBe(200);
    expect(header((await admin.get('/account', 'form')).text)).toContain(ADMIN_LINK);
  });
});

describe('the header without the admin plugin', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: defaultPlugins({ admin: false }) });
  });
  afterAll(async () => t?.close());

  it('an account with the admin role gets no link to a page the server does not serve', async () => {
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    const page = await admin.get('/account', 'form');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('href="/admin/users"');
    expect((await admin.get('/admin/users', 'form')).status).toBe(404);
  });
});

describe('the events page words the admin events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('disabled (reason escaped, until), enabled, signed out, impersonation started and ended', async () => {
    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    await elevate(admin);
    const user = await t.createUser();
    const until = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    const reason = '<script>alert(1)</script> & spam';
    const disabled = await admin.post(`/admin/users/${user.id}/disable`, { reason, until });
    expect(disabled.status, disabled.text).toBe(200);
    expect((await admin.post(`/admin/users/${user.id}/enable`, {})).status).toBe(200);
    expect((await admin.post(`/admin/users/${user.id}/disable`, { reason: 'Chargeback' })).status).toBe(200);
    expect((await admin.post(`/admin/users/${user.id}/enable`, {})).status).toBe(200);
    expect((await admin.post(`/admin/users/${user.id}/sign-out`, {})).status).toBe(200);
    expect((await admin.post(`/admin/users/${user.id}/impersonate`, {})).status).toBe(200);
    expect((await admin.post('/admin/impersonation/stop', {})).status).toBe(200);

    const client = await t.signIn(user);
    expect((await client.post('/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
    const page = await client.get('/account/events?limit=50', 'form');
    expect(page.status).toBe(200);
    const list = main(page.text);
    for (const label of [
      'Account disabled',
      'Account enabled',
      'Signed out by an administrator',
      'Administrator acting as you',
      'Administrator stopped acting as you',
    ])
      expect(list).toContain(`<strong>${label}</strong>`);
    const day = until.slice(0, 10);
    const time = until.slice(11, 16);
    expect(list).toContain(
      `Disabled by an administrator: &lt;script&gt;alert(1)&lt;/script&gt; &amp; spam · until ${day} ${time} UTC`,
    );
    expect(list).toContain(
      'Disabled by an administrator: Chargeback · until an administrator enables it again',
    );
    expect(list).toContain('Enabled again by an administrator');
    expect(list).toContain('Every session and remembered browser signed out by an administrator');
    expect(list).toContain('An administrator started acting as you · until');
    expect(list).toContain('The administrator stopped');
    expect(list).not.toContain('<script>alert(1)');
    expect(list).not.toMatch(/admin id:|admin_id|>account_disabled|>impersonation_started/);
  });
});
