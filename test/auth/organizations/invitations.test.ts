/**
 * Invitations: listed and withdrawn by managers, void once revoked, expired or once their inviter
 * may no longer invite with their role; an account holding the invited address without having
 * proved it is offered a link that proves it; nothing of it while an administrator impersonates;
 * ids out of the database's range are unknown ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import type { TestClient } from '../../support/client.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { linkIn } from '../../support/mail.ts';
import { elevate } from '../../support/sudo.ts';
import { addMember, createOrganization, startTenantApp } from './fixture.ts';

const LINK = 'http://localhost:3000/organizations/invitations/';

describe('organization invitations: list, revoke, void rules, address proof', () => {
  let t: ApiApp;
  let counter = 0;

  const user = async (emailVerified = true) => {
    counter += 1;
    const u = await t.createUser({ email: `inv${counter}@example.com`, emailVerified });
    return { user: u, client: await t.signIn(u) };
  };
  /** Invite `email` as `role`: the invitation's id and the emailed token. */
  const invite = async (client: TestClient, organizationId: number, email: string, role: string) => {
    const before = t.mail.to(email).length;
    const response = await client.post(`/organizations/${organizationId}/invitations`, { email, role });
    expect(response.status, response.text).toBe(201);
    const mail = await t.mail.waitFor(email, { count: before + 1 });
    const token = decodeURIComponent(linkIn(mail, LINK).split('/').pop()!);
    return { id: response.body.data.invitation.id as number, token };
  };
  const accept = (client: TestClient, token: string, proof?: string) =>
    client.post('/organizations/invitations/accept', proof === undefined ? { token } : { token, proof });
  const listed = async (client: TestClient, organizationId: number) => {
    const response = await client.get(`/organizations/${organizationId}/invitations`);
    expect(response.status, response.text).toBe(200);
    return response.body.data.invitations as { id: number; email: string; role: string }[];
  };
  const memberRole = async (organizationId: number, userId: number) =>
    (
      await t.services.db
        .selectFrom('organization_members')
        .select('role')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
    )?.role;

  beforeAll(async () => {
    t = await startTenantApp();
  });
  afterAll(async () => t?.close());

  it('GET /organizations/{id}/invitations: pending ones for owners and admins, 403 for members, 404 for others', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Listing');
    const admin = await user();
    const member = await user();
    await addMember(t, org, admin.user, 'admin');
    await addMember(t, org, member.user, 'member');
    const first = await invite(boss.client, org, 'listed1@example.com', 'member');
    const second = await invite(admin.client, org, 'listed2@example.com', 'viewer');
    const response = await boss.client.get(`/organizations/${org}/invitations`);
    expect(response.body.action).toBe('organizations.invitations');
    expect(response.body.data.invitations).toEqual([
      {
        id: second.id,
        email: 'listed2@example.com',
        role: 'viewer',
        invited_by: admin.user.id,
        expires_at: expect.any(String),
      },
      {
        id: first.id,
        email: 'listed1@example.com',
        role: 'member',
        invited_by: boss.user.id,
        expires_at: expect.any(String),
      },
    ]);
    expect(await listed(admin.client, org)).toHaveLength(2);
    expect((await member.client.get(`/organizations/${org}/invitations`)).status).toBe(403);
    const stranger = await user();
    expect((await stranger.client.get(`/organizations/${org}/invitations`)).status).toBe(404);
    // Used and expired ones are not pending.
    const invitee = await user();
    const used = await invite(boss.client, org, invitee.user.email, 'member');
    expect((await accept(invitee.client, used.token)).status).toBe(200);
    await t.services.db
      .updateTable('organization_invitations')
      .set({ expires_at: t.clock.now().toISOString() })
      .where('id', '=', first.id)
      .execute();
    expect((await listed(boss.client, org)).map((i) => i.id)).toEqual([second.id]);
  });

  it('DELETE …/invitations/{invitationId}: withdrawn, then 404 to accept and gone from the list; owner invitations by owners only', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Revoking');
    const admin = await user();
    await addMember(t, org, admin.user, 'admin');
    const invitee = await user();
    const plain = await invite(admin.client, org, invitee.user.email, 'member');
    const ownerInvite = await invite(boss.client, org, 'future-owner@example.com', 'owner');
    // An admin may not withdraw an owner invitation; an owner may.
    const refused = await admin.client.delete(`/organizations/${org}/invitations/${ownerInvite.id}`);
    expect(refused.status).toBe(403);
    expect((await listed(boss.client, org)).map((i) => i.id)).toContain(ownerInvite.id);
    const revoked = await admin.client.delete(`/organizations/${org}/invitations/${plain.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.action).toBe('organizations.invitation_revoked');
    expect((await listed(boss.client, org)).map((i) => i.id)).toEqual([ownerInvite.id]);
    expect((await accept(invitee.client, plain.token)).status).toBe(404);
    expect(await memberRole(org, invitee.user.id)).toBeUndefined();
    // Twice, unknown, or another organization's: 404.
    expect((await admin.client.delete(`/organizations/${org}/invitations/${plain.id}`)).status).toBe(404);
    expect((await boss.client.delete(`/organizations/${org}/invitations/999999`)).status).toBe(404);
    const other = await user();
    const otherOrg = await createOrganization(other.client, 'Elsewhere');
    const theirs = await invite(other.client, otherOrg, 'theirs@example.com', 'member');
    expect((await boss.client.delete(`/organizations/${org}/invitations/${theirs.id}`)).status).toBe(404);
    expect((await listed(other.client, otherOrg)).map((i) => i.id)).toEqual([theirs.id]);
    // A member that is not a manager: 403.
    const member = await user();
    await addMember(t, org, member.user, 'member');
    expect((await member.client.delete(`/organizations/${org}/invitations/${ownerInvite.id}`)).status).toBe(
      403,
    );
    expect((await boss.client.delete(`/organizations/${org}/invitations/${ownerInvite.id}`)).status).toBe(
      200,
    );
  });

  it('the organization page lists pending invitations with a Withdraw form (CSRF) that works', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Paged');
    const { id } = await invite(boss.client, org, 'paged@example.com', 'member');
    const page = await boss.client.get(`/organizations/${org}`, 'form');
    expect(page.text).toContain('paged@example.com');
    const form = new RegExp(
      `<form\\s+class="inline"\\s+method="post"\\s+action="/organizations/${org}/invitations/${id}/revoke"\\s*>\\s*<input type="hidden" name="_csrf"`,
    );
    expect(page.text).toMatch(form);
    // Without the CSRF token: refused, nothing withdrawn.
    const forged = await boss.client.post(`/organizations/${org}/invitations/${id}/revoke`, {}, 'form', {
      csrf: false,
    });
    expect(forged.status).toBe(403);
    expect(await listed(boss.client, org)).toHaveLength(1);
    const withdrawn = await boss.client.post(`/organizations/${org}/invitations/${id}/revoke`, {}, 'form');
    expect(withdrawn.status, withdrawn.text).toBe(303);
    expect(await listed(boss.client, org)).toEqual([]);
    expect((await boss.client.get(`/organizations/${org}`, 'form')).text).not.toContain(
      `/invitations/${id}/revoke`,
    );
  });

  it('an admin who invited a second address of their own and was removed cannot come back with it', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Removal');
    const admin = await user();
    await addMember(t, org, admin.user, 'admin');
    const second = await user();
    const { token } = await invite(admin.client, org, second.user.email, 'admin');
    expect((await boss.client.delete(`/organizations/${org}/members/${admin.user.id}`)).status).toBe(200);
    expect(await listed(boss.client, org)).toEqual([]);
    // Even once made an admin again, the invitation stays void.
    await addMember(t, org, admin.user, 'admin');
    expect((await accept(second.client, token)).status).toBe(404);
    expect(await memberRole(org, second.user.id)).toBeUndefined();
  });

  it('demotion voids what the new role could not send: all of an admin made member, the owner invitations of an owner made admin', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Demotion');
    const coOwner = await user();
    await addMember(t, org, coOwner.user, 'owner');
    const admin = await user();
    await addMember(t, org, admin.user, 'admin');
    const [a, b, c] = [await user(), await user(), await user()];
    const fromAdmin = await invite(admin.client, org, a.user.email, 'member');
    const ownerFromCoOwner = await invite(coOwner.client, org, b.user.email, 'owner');
    const memberFromCoOwner = await invite(coOwner.client, org, c.user.email, 'member');
    expect(
      (await boss.client.patch(`/organizations/${org}/members/${admin.user.id}`, { role: 'member' })).status,
    ).toBe(200);
    expect(
      (await boss.client.patch(`/organizations/${org}/members/${coOwner.user.id}`, { role: 'admin' })).status,
    ).toBe(200);
    expect((await listed(boss.client, org)).map((i) => i.id)).toEqual([memberFromCoOwner.id]);
    // Promoted again: what went stays gone.
    expect(
      (await boss.client.patch(`/organizations/${org}/members/${coOwner.user.id}`, { role: 'owner' })).status,
    ).toBe(200);
    expect(
      (await boss.client.patch(`/organizations/${org}/members/${admin.user.id}`, { role: 'admin' })).status,
    ).toBe(200);
    expect((await accept(a.client, fromAdmin.token)).status).toBe(404);
    expect((await accept(b.client, ownerFromCoOwner.token)).status).toBe(404);
    expect((await accept(c.client, memberFromCoOwner.token)).status).toBe(200);
    expect(await memberRole(org, b.user.id)).toBeUndefined();
    expect(await memberRole(org, c.user.id)).toBe('member');
  });

  it("accepting checks the inviter's rights as they stand, whatever changed them", async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'At accept time');
    const admin = await user();
    await addMember(t, org, admin.user, 'admin');
    const invitee = await user();
    const { token } = await invite(admin.client, org, invitee.user.email, 'member');
    // Changed behind the endpoints' back (no invitation was voided on the way).
    await t.services.db
      .updateTable('organization_members')
      .set({ role: 'viewer' })
      .where('organization_id', '=', org)
      .where('user_id', '=', admin.user.id)
      .execute();
    expect(await listed(boss.client, org)).toEqual([]);
    expect((await invitee.client.get(`/organizations/invitations/${token}`)).status).toBe(404);
    expect((await accept(invitee.client, token)).status).toBe(404);
    expect(await memberRole(org, invitee.user.id)).toBeUndefined();
  });

  it('two accepts at once: exactly one joins', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Race');
    const invitee = await user();
    const { token } = await invite(boss.client, org, invitee.user.email, 'viewer');
    const answers = await Promise.all([accept(invitee.client, token), accept(invitee.client, token)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    const rows = await t.services.db
      .selectFrom('organization_members')
      .select('role')
      .where('user_id', '=', invitee.user.id)
      .execute();
    expect(rows).toEqual([{ role: 'viewer' }]);
    const events = await t.services.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', invitee.user.id)
      .where('type', '=', 'organization_invitation_accepted')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('an unproved address: 403 organizations.email_unconfirmed, a confirmation link by mail, then the invitation joins', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Proof');
    const fresh = await user(false);
    const { token } = await invite(boss.client, org, fresh.user.email, 'member');
    const refused = await accept(fresh.client, token);
    expect(refused.status).toBe(403);
    expect(refused.body.action).toBe('organizations.email_unconfirmed');
    expect(refused.body.message).toMatch(/confirm/i);
    // The page offers the link (a form with the CSRF token), not the join button.
    const page = await fresh.client.get(`/organizations/invitations/${encodeURIComponent(token)}`, 'form');
    expect(page.text).toMatch(
      /<form method="post" action="\/organizations\/invitations\/confirmation">\s*<input type="hidden" name="_csrf"/,
    );
    expect(page.text).not.toContain('action="/organizations/invitations/accept"');
    // Someone else signed in, with the link: not offered, and refused.
    const other = await user(false);
    expect(
      (await other.client.get(`/organizations/invitations/${encodeURIComponent(token)}`, 'form')).text,
    ).not.toContain('/organizations/invitations/confirmation');
    expect((await other.client.post('/organizations/invitations/confirmation', { token })).status).toBe(403);

    const before = t.mail.to(fresh.user.email).length;
    const sent = await fresh.client.post('/organizations/invitations/confirmation', { token }, 'form');
    expect(sent.status, sent.text).toBe(200);
    expect(sent.text, sent.text).toContain('is on its way');
    const mail = await t.mail.waitFor(fresh.user.email, { count: before + 1 });
    const link = linkIn(mail, LINK);
    const url = new URL(link);
    const proof = url.searchParams.get('proof')!;
    expect(proof).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(decodeURIComponent(url.pathname.split('/').pop()!)).toBe(token);
    const stored = await t.services.db.selectFrom('organization_email_proofs').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(proof);

    // Opening the link changes nothing (mail scanners open links); its page has the button.
    const opened = await fresh.client.get(`${url.pathname}${url.search}`, 'form');
    expect(opened.text).toContain(`name="proof" value="${proof}"`);
    expect((await t.services.users.findById(fresh.user.id))!.email_verified_at).toBeNull();
    // The proof is the asking account's only.
    const otherInvite = await invite(boss.client, org, other.user.email, 'member');
    const stolen = await accept(other.client, otherInvite.token, proof);
    expect(stolen.status).toBe(403);
    expect(stolen.body.action).toBe('organizations.email_unconfirmed');
    expect((await t.services.users.findById(other.user.id))!.email_verified_at).toBeNull();

    const joined = await fresh.client.post('/organizations/invitations/accept', { token, proof }, 'form');
    expect(joined.status, joined.text).toBe(303);
    expect(await memberRole(org, fresh.user.id)).toBe('member');
    expect((await t.services.users.findById(fresh.user.id))!.email_verified_at).not.toBeNull();
    // Proved: another invitation's plain link joins.
    const elsewhere = await createOrganization(boss.client, 'Proof 2');
    const next = await invite(boss.client, elsewhere, fresh.user.email, 'viewer');
    expect((await accept(fresh.client, next.token)).status).toBe(200);
    // Nothing more to prove.
    const third = await invite(
      boss.client,
      await createOrganization(boss.client, 'Proof 3'),
      fresh.user.email,
      'member',
    );
    expect(
      (await fresh.client.post('/organizations/invitations/confirmation', { token: third.token })).status,
    ).toBe(409);
  });

  it('the same invitation link joins once the address is proved, and a used proof is refused', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Relink');
    const fresh = await user(false);
    const { token } = await invite(boss.client, org, fresh.user.email, 'member');
    const before = t.mail.to(fresh.user.email).length;
    expect((await fresh.client.post('/organizations/invitations/confirmation', { token })).status).toBe(200);
    const mail = await t.mail.waitFor(fresh.user.email, { count: before + 1 });
    const proof = new URL(linkIn(mail, LINK)).searchParams.get('proof')!;
    // A made-up proof: still unconfirmed.
    expect((await accept(fresh.client, token, 'x'.repeat(43))).body.action).toBe(
      'organizations.email_unconfirmed',
    );
    expect((await accept(fresh.client, token, proof)).status).toBe(200);
    expect(await memberRole(org, fresh.user.id)).toBe('member');
  });

  it("a proof is its asking account's, even for another account that later holds the address", async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Bound');
    const asker = await user(false);
    const address = asker.user.email;
    const first = await invite(boss.client, org, address, 'member');
    const before = t.mail.to(address).length;
    expect(
      (await asker.client.post('/organizations/invitations/confirmation', { token: first.token })).status,
    ).toBe(200);
    const proof = new URL(
      linkIn(await t.mail.waitFor(address, { count: before + 1 }), LINK),
    ).searchParams.get('proof')!;
    // The asker gives the address up; another (unproved) account takes it.
    await t.services.db
      .updateTable('users')
      .set({ email: 'gave-up@example.com' })
      .where('id', '=', asker.user.id)
      .execute();
    const taker = await user(false);
    await t.services.db
      .updateTable('users')
      .set({ email: address })
      .where('id', '=', taker.user.id)
      .execute();
    const takerC = await t.signIn({ ...taker.user, email: address });
    const answer = await accept(takerC, first.token, proof);
    expect(answer.status).toBe(403);
    expect(answer.body.action).toBe('organizations.email_unconfirmed');
    expect(await memberRole(org, taker.user.id)).toBeUndefined();
    expect((await t.services.users.findById(taker.user.id))!.email_verified_at).toBeNull();
    // Nor does it prove the asker's new address, invited too.
    const second = await invite(boss.client, org, 'gave-up@example.com', 'member');
    const moved = await accept(asker.client, second.token, proof);
    expect(moved.status, moved.text).toBe(403);
    expect(moved.body.action).toBe('organizations.email_unconfirmed');
    expect((await t.services.users.findById(asker.user.id))!.email_verified_at).toBeNull();
  });

  it('confirmation links are rate limited like the other links Citadel mails (429)', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Limited');
    const fresh = await user(false);
    const { token } = await invite(boss.client, org, fresh.user.email, 'member');
    const { sendsPerAddress } = t.services.config.limits;
    const statuses: number[] = [];
    for (let i = 0; i <= sendsPerAddress; i++)
      statuses.push((await fresh.client.post('/organizations/invitations/confirmation', { token })).status);
    expect(statuses.slice(0, sendsPerAddress).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('while an administrator impersonates an owner: no invitation, revocation, acceptance, role change, removal or deletion (403 impersonation.forbidden)', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Impersonated');
    const member = await user();
    await addMember(t, org, member.user, 'member');
    const pending = await invite(boss.client, org, 'pending@example.com', 'member');
    const root = await user();
    // The administrator was invited (as owner, by the owner) before: joining while acting as the
    // owner is refused too.
    const rootInvite = await invite(boss.client, org, root.user.email, 'owner');
    await grantAdminRole(t.services.db, root.user.email);
    const admin = await t.signIn(root.user);
    await elevate(admin);
    const invitationMails = () => t.mail.to(root.user.email).filter((m) => m.subject.includes('Join'));
    expect((await admin.post(`/admin/users/${boss.user.id}/impersonate`, {})).status).toBe(200);
    expect((await admin.get('/me')).body.user.id).toBe(boss.user.id);
    const before = invitationMails().length;
    const attempts = [
      () => admin.post(`/organizations/${org}/invitations`, { email: root.user.email, role: 'owner' }),
      () => admin.delete(`/organizations/${org}/invitations/${pending.id}`),
      () => admin.post(`/organizations/${org}/invitations/${pending.id}/revoke`, {}),
      () => admin.post('/organizations/invitations/accept', { token: rootInvite.token }),
      () => admin.post('/organizations/invitations/confirmation', { token: rootInvite.token }),
      () => admin.patch(`/organizations/${org}/members/${member.user.id}`, { role: 'admin' }),
      () => admin.delete(`/organizations/${org}/members/${member.user.id}`),
      () => admin.delete(`/organizations/${org}`),
      () => admin.post(`/organizations/${org}/delete`, {}),
    ];
    for (const attempt of attempts) {
      const answer = await attempt();
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.action).toBe('impersonation.forbidden');
    }
    // Reading is fine.
    expect((await admin.get(`/organizations/${org}/invitations`)).status).toBe(200);
    expect((await admin.post('/admin/impersonation/stop', {})).status).toBe(200);
    expect(invitationMails()).toHaveLength(before);
    expect((await listed(boss.client, org)).map((i) => i.id).sort()).toEqual(
      [pending.id, rootInvite.id].sort(),
    );
    expect(await memberRole(org, member.user.id)).toBe('member');
    expect(await memberRole(org, root.user.id)).toBeUndefined();
    expect((await boss.client.get(`/organizations/${org}`)).status).toBe(200);
  });

  it('ids outside the integer range are unknown ids: 404 in a path, 422 in a body, never a 5xx', async () => {
    const boss = await user();
    const org = await createOrganization(boss.client, 'Ranges');
    const { id: invitationId } = await invite(boss.client, org, 'range@example.com', 'member');
    await elevate(boss.client);
    for (const big of ['2147483648', '99999999999999999999', '0', '-1', '1e3']) {
      const paths: [string, string, Record<string, unknown>?][] = [
        ['GET', `/organizations/${big}`],
        ['PATCH', `/organizations/${big}`, { name: 'x' }],
        ['DELETE', `/organizations/${big}`],
        ['POST', `/organizations/${big}/delete`, {}],
        ['GET', `/organizations/${big}/invitations`],
        ['POST', `/organizations/${big}/invitations`, { email: 'x@example.com', role: 'member' }],
        ['DELETE', `/organizations/${big}/invitations/${invitationId}`],
        ['DELETE', `/organizations/${org}/invitations/${big}`],
        ['POST', `/organizations/${org}/invitations/${big}/revoke`, {}],
        ['PATCH', `/organizations/${big}/members/${boss.user.id}`, { role: 'member' }],
        ['PATCH', `/organizations/${org}/members/${big}`, { role: 'member' }],
        ['POST', `/organizations/${org}/members/${big}/role`, { role: 'member' }],
        ['DELETE', `/organizations/${big}/members/${boss.user.id}`],
        ['DELETE', `/organizations/${org}/members/${big}`],
        ['POST', `/organizations/${org}/members/${big}/remove`, {}],
      ];
      for (const [method, path, body] of paths) {
        const answer =
          method === 'GET'
            ? await boss.client.get(path)
            : method === 'DELETE'
              ? await boss.client.delete(path)
              : method === 'PATCH'
                ? await boss.client.patch(path, body)
                : await boss.client.post(path, body);
        expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(404);
      }
    }
    for (const id of [2147483648, 1e20, '2147483648', '99999999999999999999']) {
      const answer = await boss.client.post('/organizations/active', { organization_id: id });
      expect(answer.status, `${id}: ${answer.text}`).toBe(422);
      expect(answer.body.errors.organization_id).toBeTruthy();
    }
    // Nothing was touched on the way.
    expect(await listed(boss.client, org)).toHaveLength(1);
    expect(await memberRole(org, boss.user.id)).toBe('owner');
  });

  it('the auth OpenAPI document declares what the new endpoints and the changes answer', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/docs' })).json();
    const statuses = (path: string, method: string) =>
      Object.keys(document.paths[path][method].responses).sort();
    expect(statuses('/organizations/{id}/invitations', 'get')).toEqual(
      expect.arrayContaining(['200', '403', '404']),
    );
    expect(statuses('/organizations/{id}/invitations/{invitationId}', 'delete')).toEqual(
      expect.arrayContaining(['200', '403', '404']),
    );
    expect(statuses('/organizations/{id}/members/{userId}', 'patch')).toEqual(
      expect.arrayContaining(['403', '404', '409']),
    );
    expect(statuses('/organizations/invitations/confirmation', 'post')).toEqual(
      expect.arrayContaining(['200', '403', '404', '409', '429']),
    );
    for (const [path, method] of [
      ['/organizations/{id}/invitations', 'post'],
      ['/organizations/{id}/invitations/{invitationId}', 'delete'],
      ['/organizations/invitations/accept', 'post'],
      ['/organizations/invitations/confirmation', 'post'],
      ['/organizations/{id}/members/{userId}', 'patch'],
      ['/organizations/{id}/members/{userId}', 'delete'],
      ['/organizations/{id}', 'delete'],
    ] as const)
      expect(document.paths[path][method].description, `${method} ${path}`).toContain(
        'impersonation.forbidden',
      );
  });
});

describe('the tokens of invitation and confirmation links stay out of the log', () => {
  let t: ApiApp;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTenantApp({
      logger: undefined,
      logLevel: 'trace',
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('invitation token and proof: redacted from every line at trace level, whatever the answer', async () => {
    const boss = await t.createUser({ email: 'log-boss@example.com', emailVerified: true });
    const bossC = await t.signIn(boss);
    const org = await createOrganization(bossC, 'Logged');
    const fresh = await t.createUser({ email: 'log-fresh@example.com' });
    const freshC = await t.signIn(fresh);
    expect(
      (await bossC.post(`/organizations/${org}/invitations`, { email: fresh.email, role: 'member' })).status,
    ).toBe(201);
    const token = decodeURIComponent(
      linkIn(await t.mail.waitFor(fresh.email, { count: 1, match: (m) => m.subject.includes('Join') }), LINK)
        .split('/')
        .pop()!,
    );
    expect((await freshC.post('/organizations/invitations/confirmation', { token })).status).toBe(200);
    const confirmation = await t.mail.waitFor(fresh.email, {
      count: 1,
      match: (m) => m.subject.includes('Confirm your address'),
    });
    const url = new URL(linkIn(confirmation, LINK));
    const proof = url.searchParams.get('proof')!;
    await freshC.get(`${url.pathname}${url.search}`, 'form');
    await freshC.get(`${url.pathname}${url.search}`);
    await freshC.get(`/organizations/invitations/${token}x?proof=${proof}`);
    expect((await freshC.post('/organizations/invitations/accept', { token, proof }, 'form')).status).toBe(
      303,
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(proof);
    }
  });
});
