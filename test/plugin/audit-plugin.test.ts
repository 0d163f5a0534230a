import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultPlugins, organizations } from '../../src/index.ts';
import { grantAdminRole } from '../../src/auth/core/roles.ts';
import { auditLog } from '../../examples/audit-plugin/audit-plugin.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * The example third-party plugin (examples/audit-plugin), written against `citadel/plugin` alone:
 * hooks, init with onClose, a security event, an error code, `auth: 'admin'` and `orgRole`.
 */
describe('the audit plugin example', () => {
  let t: TestApp;
  let sweeps: number[];
  beforeAll(async () => {
    sweeps = [];
    t = await startTestApp({
      plugins: [
        ...defaultPlugins(),
        organizations(),
        auditLog({ maxOrganizationsPerDay: 2, onSweep: (deleted) => void sweeps.push(deleted) }),
      ],
    });
  });
  afterAll(async () => t?.close());

  it('records organization changes (after hook, security event), refuses past the quota (before hook)', async () => {
    const owner = await t.createUser();
    const client = await t.signIn(owner);
    const first = await client.post('/organizations', { name: 'Audited One' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ action: 'organizations.create', audited: true });
    expect((await client.post('/organizations', { name: 'Audited Two' })).status).toBe(201);
    const refused = await client.post('/organizations', { name: 'Audited Three' });
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('audit.quota');
    const events = await t.services.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', owner.id)
      .where('type', '=', 'audit.organization_created')
      .execute();
    expect(events).toHaveLength(2);
    expect(t.services.errorCodes).toContain('audit.quota');
  });

  it('GET /audit is for administrators; GET /organizations/:id/audit for the organization’s admins', async () => {
    const owner = await t.createUser();
    const client = await t.signIn(owner);
    const created = await client.post('/organizations', { name: 'Audited Org' });
    const id = created.body.data.organization.id as number;
    expect((await client.get('/audit')).status).toBe(403);
    const mine = await client.get(`/organizations/${id}/audit`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.entries).toEqual([
      expect.objectContaining({ user_id: owner.id, action: 'organizations.create' }),
    ]);
    const outsider = await t.signIn(await t.createUser());
    expect((await outsider.get(`/organizations/${id}/audit`)).status).toBe(404);

    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    const all = await admin.get('/audit');
    expect(all.status).toBe(200);
    expect(all.body.data.entries.length).toBeGreaterThanOrEqual(3);
  });

  it('init swept once at start-up', () => {
    expect(sweeps).toEqual([0]);
  });
});

describe('the audit plugin’s init and onClose', () => {
  it('sweeps entries past retention on its timer, and stops when the server closes', async () => {
    const sweeps: number[] = [];
    const t = await startTestApp({
      plugins: [
        ...defaultPlugins(),
        organizations(),
        auditLog({
          retentionDays: 1,
          sweepEverySeconds: 0.05,
          onSweep: (deleted) => void sweeps.push(deleted),
        }),
      ],
    });
    try {
      const user = await t.createUser();
      const old = new Date(t.clock.now().getTime() - 2 * 86_400_000).toISOString();
      await t.services.db
        .withTables<{ audit_entries: { user_id: number; action: string; created_at: string } }>()
        .insertInto('audit_entries')
        .values([
          { user_id: user.id, action: 'old', created_at: old },
          { user_id: user.id, action: 'new', created_at: t.clock.now().toISOString() },
        ])
        .execute();
      await expect.poll(() => sweeps.includes(1), { timeout: 2000 }).toBe(true);
    } finally {
      await t.close();
    }
    // Each sweep reads the clock first: after close, no sweep starts (a query would fail unseen).
    const now = vi.spyOn(t.clock, 'now');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(now).not.toHaveBeenCalled();
  });
});
