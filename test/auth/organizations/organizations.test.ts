import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import type { TestClient } from '../../support/client.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { linkIn } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';
import { lintOpenApi } from '../../support/redocly.ts';
import { addMember, createOrganization, startTenantApp } from './fixture.ts';

describe('organizations, members, invitations (contract section 17)', () => {
  let t: ApiApp;
  let owner: UserRecord;
  let ownerC: TestClient;
  let org: number;
  let counter = 0;

  const user = async (emailVerified = true) => {
    counter += 1;
    const u = await t.createUser({ email: `person${counter}@example.com`, emailVerified });
    return { user: u, client: await t.signIn(u) };
  };
  const events = (userId: number) =>
    t.services.db
      .selectFrom('security_events')
      .select(['type', 'detail'])
      .where('user_id', '=', userId)
      .where('type', 'like', 'organization_%')
      .orderBy('id')
      .execute();
  /** Invite `email` as `role` and return the emailed token. */
  const invite = async (client: TestClient, organizationId: number, email: string, role: string) => {
    const before = t.mail.to(email).length;
    const response = await client.post(`/organizations/${organizationId}/invitations`, { email, role });
    expect(response.status, response.text).toBe(201);
    const mail = await t.mail.waitFor(email, { count: before + 1 });
    const link = linkIn(mail, 'http://localhost:3000/organizations/invitations/');
    return decodeURIComponent(link.split('/').pop()!);
  };

  beforeAll(async () => {
    t = await startTenantApp();
    ({ user: owner, client: ownerC } = await user());
    org = await createOrganization(ownerC, 'Team Rocket');
  });
  afterAll(async () => t?.close());

  it('POST /organizations: 201, a slug, the creator is owner and acts in it', async () => {
    const response = await ownerC.post('/organizations', { name: 'Ünïcode Crew!' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      action: 'organizations.create',
      data: { organization: { name: 'Ünïcode Crew!', slug: 'unicode-crew' } },
    });
    const taken = await ownerC.post('/organizations', { name: 'Other', slug: 'unicode-crew' });
    expect(taken.status).toBe(422);
    expect(taken.body.errors.slug).toBeTruthy();
    const bad = await ownerC.post('/organizations', { name: 'Other', slug: 'Not A Slug' });
    expect(bad.status).toBe(422);
    const same = await ownerC.post('/organizations', { name: 'Unicode crew' });
    expect(same.body.data.organization.slug).toBe('unicode-crew-2');
    const me = await ownerC.get('/me');
    expect(me.body.organization).toMatchObject({ id: same.body.data.organization.id, role: 'owner' });
    expect((await ownerC.post('/organizations/active', { organization_id: org })).status).toBe(200);
    // null (JSON) or the form's empty value ("Act in no organization"): no active organization.
    const none = await ownerC.post('/organizations/active', { organization_id: null });
    expect(none.status, none.text).toBe(200);
    expect(none.body.data.organization).toBeNull();
    expect((await ownerC.get('/me')).body.organization).toBeNull();
    expect((await ownerC.post('/organizations/active', { organization_id: org })).status).toBe(200);
    expect((await ownerC.get('/me')).body.organization).toMatchObject({ id: org });
    const noneByForm = await ownerC.post('/organizations/active', { organization_id: '' }, 'form');
    expect(noneByForm.status, noneByForm.text).toBe(303);
    expect((await ownerC.get('/me')).body.organization).toBeNull();
    // Leaving the field out is still a 422: nothing is changed by accident.
    expect((await ownerC.post('/organizations/active', {})).status).toBe(422);
    expect((await ownerC.post('/organizations/active', { organization_id: org })).status).toBe(200);
    const list = await ownerC.get('/organizations');
    expect(list.body.action).toBe('organizations.index');
    expect(list.body.data.organizations).toHaveLength(3);
    for (const o of list.body.data.organizations) expect(o.role).toBe('owner');
  });

  it('GET /organizations/{id}: members for a member, 404 for anyone else', async () => {
    const shown = await ownerC.get(`/organizations/${org}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.members).toEqual([
      {
        user: { id: owner.id, username: owner.username, email: owner.email },
        role: 'owner',
        created_at: expect.any(String),
      },
    ]);
    const stranger = await user();
    expect((await stranger.client.get(`/organizations/${org}`)).status).toBe(404);
    expect((await stranger.client.patch(`/organizations/${org}`, { name: 'mine' })).status).toBe(404);
    expect((await stranger.client.get('/organizations/abc')).status).toBe(404);
  });

  it('invitation: emailed link, accepted once by the proved, invited address only', async () => {
    const invitee = await user();
    const token = await invite(ownerC, org, invitee.user.email, 'member');
    const stored = await t.services.db
      .selectFrom('organization_invitations')
      .selectAll()
      .where('email', '=', invitee.user.email)
      .executeTakeFirstOrThrow();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.token_hash).not.toContain(token);
    expect(new Date(stored.expires_at).getTime() - new Date(stored.created_at).getTime()).toBe(
      7 * 24 * 3600 * 1000,
    );
    // Someone else, signed in, with the link: 403, and the invitation still works.
    const other = await user();
    expect((await other.client.post('/organizations/invitations/accept', { token })).status).toBe(403);
    // The invited address, not proved: 403 too.
    const unproved = await t.createUser({ email: 'unproved@example.com' });
    const unprovedC = await t.signIn(unproved);
    const token2 = await invite(ownerC, org, 'unproved@example.com', 'viewer');
    expect((await unprovedC.post('/organizations/invitations/accept', { token: token2 })).status).toBe(403);
    // Unknown → 404.
    expect(
      (await invitee.client.post('/organizations/invitations/accept', { token: 'x'.repeat(43) })).status,
    ).toBe(404);
    const accepted = await invitee.client.post('/organizations/invitations/accept', { token });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({
      action: 'organizations.join',
      data: { organization: { id: org, role: 'member' } },
    });
    // Used → 404.
    expect((await invitee.client.post('/organizations/invitations/accept', { token })).status).toBe(404);
    expect((await events(invitee.user.id)).map((e) => e.type)).toEqual([
      'organization_invitation_accepted',
      'organization_member_added',
    ]);
  });

  it('an expired invitation is 404', async () => {
    const invitee = await user();
    const token = await invite(ownerC, org, invitee.user.email, 'member');
    // Seven days later (the session would have expired too: the row is moved back instead).
    await t.services.db
      .updateTable('organization_invitations')
      .set({ expires_at: t.clock.now().toISOString() })
      .where('email', '=', invitee.user.email)
      .execute();
    expect((await invitee.client.post('/organizations/invitations/accept', { token })).status).toBe(404);
  });

  it('parallel accepts of one invitation: exactly one succeeds', async () => {
    const invitee = await user();
    const token = await invite(ownerC, org, invitee.user.email, 'viewer');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => invitee.client.post('/organizations/invitations/accept', { token })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 404)).toHaveLength(5);
    const members = await t.services.db
      .selectFrom('organization_members')
      .select('role')
      .where('user_id', '=', invitee.user.id)
      .execute();
    expect(members).toEqual([{ role: 'viewer' }]);
  });

  it('only managers invite; only an owner invites an owner; unknown roles are 422', async () => {
    const admin = await user();
    const member = await user();
    await addMember(t, org, admin.user, 'admin');
    await addMember(t, org, member.user, 'member');
    expect(
      (
        await member.client.post(`/organizations/${org}/invitations`, {
          email: 'a@example.com',
          role: 'member',
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await admin.client.post(`/organizations/${org}/invitations`, {
          email: 'a@example.com',
          role: 'owner',
        })
      ).status,
    ).toBe(403);
    const unknown = await admin.client.post(`/organizations/${org}/invitations`, {
      email: 'a@example.com',
      role: 'emperor',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.role).toBeTruthy();
    await invite(admin.client, org, 'fromadmin@example.com', 'admin');
  });

  it('10 invitations per organization per hour, counted once under parallel requests', async () => {
    const fresh = await user();
    const id = await createOrganization(fresh.client, 'Rate limited');
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        fresh.client.post(`/organizations/${id}/invitations`, {
          email: `bulk${i}@example.com`,
          role: 'member',
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(4);
    const stored = await t.services.db
      .selectFrom('organization_invitations')
      .select('id')
      .where('organization_id', '=', id)
      .execute();
    expect(stored).toHaveLength(10);
    // A non-member's attempts do not use up the organization's budget.
    const stranger = await user();
    expect(
      (
        await stranger.client.post(`/organizations/${org}/invitations`, {
          email: 'z@example.com',
          role: 'member',
        })
      ).status,
    ).toBe(404);
  });

  it('roles: managers change them, only an owner touches an owner, security events for the member', async () => {
    const admin = await user();
    const member = await user();
    await addMember(t, org, admin.user, 'admin');
    await addMember(t, org, member.user, 'member');
    const path = `/organizations/${org}/members/${member.user.id}`;
    expect((await member.client.patch(path, { role: 'admin' })).status).toBe(403);
    expect((await admin.client.patch(path, { role: 'viewer' })).status).toBe(200);
    expect((await admin.client.patch(path, { role: 'owner' })).status).toBe(403);
    expect(
      (await admin.client.patch(`/organizations/${org}/members/${owner.id}`, { role: 'member' })).status,
    ).toBe(403);
    expect((await admin.client.delete(`/organizations/${org}/members/${owner.id}`)).status).toBe(403);
    expect((await ownerC.patch(path, { role: 'nope' })).status).toBe(422);
    expect((await ownerC.patch(`/organizations/${org}/members/999999`, { role: 'member' })).status).toBe(404);
    expect(await events(member.user.id)).toEqual([
      { type: 'organization_role_changed', detail: expect.stringContaining('"to":"viewer"') },
    ]);
    // Removal by a manager, then leaving by oneself.
    expect((await admin.client.delete(path)).status).toBe(200);
    expect((await events(member.user.id)).map((e) => e.type)).toEqual([
      'organization_role_changed',
      'organization_member_removed',
    ]);
    const leave = await admin.client.delete(`/organizations/${org}/members/${admin.user.id}`);
    expect(leave.status).toBe(200);
    expect((await admin.client.get(`/organizations/${org}`)).status).toBe(404);
  });

  it('the last owner can be neither removed nor demoted (409), also when two owners leave at once', async () => {
    const solo = await user();
    const id = await createOrganization(solo.client, 'Solo');
    const self = `/organizations/${id}/members/${solo.user.id}`;
    const demote = await solo.client.patch(self, { role: 'member' });
    expect(demote.status).toBe(409);
    expect(demote.body.action).toBe('organizations.last_owner');
    expect((await solo.client.delete(self)).status).toBe(409);
    // Two owners, each leaving at the same time: exactly one may go.
    const second = await user();
    await addMember(t, id, second.user, 'owner');
    const answers = await Promise.all([
      solo.client.delete(self),
      second.client.delete(`/organizations/${id}/members/${second.user.id}`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const owners = await t.services.db
      .selectFrom('organization_members')
      .select('user_id')
      .where('organization_id', '=', id)
      .where('role', '=', 'owner')
      .execute();
    expect(owners).toHaveLength(1);
  });

  it('PATCH /organizations/{id}: owner and admin rename it; members may not', async () => {
    const member = await user();
    await addMember(t, org, member.user, 'member');
    expect((await member.client.patch(`/organizations/${org}`, { name: 'x' })).status).toBe(403);
    const renamed = await ownerC.patch(`/organizations/${org}`, {
      name: 'Team Rocket II',
      slug: 'team-rocket-2',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.organization).toEqual({
      id: org,
      name: 'Team Rocket II',
      slug: 'team-rocket-2',
    });
  });

  it('DELETE /organizations/{id}: owner with sudo; its tenant rows go with it', async () => {
    const boss = await user();
    const id = await createOrganization(boss.client, 'Doomed');
    const other = await user();
    const otherOrg = await createOrganization(other.client, 'Survivor');
    expect((await boss.client.post('/api/v1/projects', { name: 'doomed project' })).status).toBe(201);
    expect((await other.client.post('/api/v1/projects', { name: 'surviving project' })).status).toBe(201);
    const admin = await user();
    await addMember(t, id, admin.user, 'admin');
    await elevate(admin.client);
    expect((await admin.client.delete(`/organizations/${id}`)).status).toBe(403);
    const noSudo = await boss.client.delete(`/organizations/${id}`);
    expect(noSudo.status).toBe(403);
    expect(noSudo.body.action).toBe('sudo.required');
    await elevate(boss.client);
    const deleted = await boss.client.delete(`/organizations/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.action).toBe('organizations.delete');
    const left = await t.services.db
      .selectFrom('projects' as never)
      .select('organization_id' as never)
      .execute();
    expect(left.every((row) => (row as { organization_id: number }).organization_id !== id)).toBe(true);
    expect(left.some((row) => (row as { organization_id: number }).organization_id === otherOrg)).toBe(true);
    expect((await boss.client.get(`/organizations/${id}`)).status).toBe(404);
    expect((await boss.client.get('/me')).body.organization).toBeNull();
  });

  it(
    "the auth OpenAPI document has every organization endpoint and GET /me's organization, lint-clean",
    { timeout: 60_000 },
    async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/docs' })).json();
      for (const path of [
        '/organizations',
        '/organizations/{id}',
        '/organizations/{id}/invitations',
        '/organizations/invitations/accept',
        '/organizations/{id}/members/{userId}',
        '/organizations/active',
      ])
        expect(document.paths[path], path).toBeTruthy();
      const me = JSON.stringify(document.paths['/me'].get.responses['200']);
      expect(me).toContain('organization');
      const lint = await lintOpenApi(document);
      expect(lint.problems).toEqual([]);
    },
  );
});
