/**
 * A declaration's whole access rule, enforced by the adapter and shown by the auth OpenAPI
 * document: `auth: 'admin'` (the admin role; sudo for a change) and `orgRole` (the caller's role in
 * the organization `:id` names: 404 for a non-member, 403 short of it, the membership handed over).
 * The handler's `caller` type follows `auth` (checked by tsc, which compiles this file).
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { defaultPlugins, definePlugin, organizations } from '../../../src/index.ts';
import { defineEndpoint } from '../../../src/auth/core/endpoint.ts';
import { Envelope } from '../../../src/auth/core/envelope-schema.ts';
import { grantAdminRole } from '../../../src/auth/core/roles.ts';
import type { Caller } from '../../../src/http/security/caller.ts';
import { addMember, createOrganization, DEMO_ROLES, startTenantApp } from '../organizations/fixture.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { html } from '../../../src/html.ts';
import { elevate } from '../../support/sudo.ts';

const Answer = Envelope({ data: Type.Object({ role: Type.String() }) });
const Id = Type.Object({ id: Type.String({ maxLength: 20 }) });

/** The same admin-only probe for a read (GET) and a change (POST). */
const adminEndpoint = (method: 'GET' | 'POST', action: string) =>
  defineEndpoint({
    method,
    path: '/probe/admin',
    action,
    auth: 'admin',
    responses: { 200: Answer },
    async handler({ caller }) {
      expectTypeOf(caller).toEqualTypeOf<Caller>();
      return { status: 'success', data: { role: caller.user.role } };
    },
  });

const adminRead = adminEndpoint('GET', 'probe.admin_read');
const adminChange = adminEndpoint('POST', 'probe.admin_change');

const orgEndpoint = <const Path extends string>(path: Path, orgRole: string) =>
  defineEndpoint({
    method: 'GET',
    path,
    action: 'probe.org',
    auth: 'session',
    orgRole,
    params: Id,
    responses: { 200: Answer },
    async handler({ membership }) {
      return { status: 'success', data: { role: membership.role } };
    },
  });

const optional = defineEndpoint({
  method: 'GET',
  path: '/probe/optional',
  action: 'probe.optional',
  auth: 'optional',
  responses: { 200: Answer },
  async handler({ caller }) {
    expectTypeOf(caller).toEqualTypeOf<Caller | null>();
    // @ts-expect-error -- `optional`: the caller may be null
    void caller.user;
    return { status: 'success', data: { role: caller?.user.role ?? 'anonymous' } };
  },
});

const session = defineEndpoint({
  method: 'GET',
  path: '/probe/session',
  action: 'probe.session',
  auth: 'session',
  responses: { 200: Answer },
  async handler(input) {
    expectTypeOf(input.caller).toEqualTypeOf<Caller>();
    // @ts-expect-error -- no orgRole: no membership
    void input.membership;
    return { status: 'success', data: { role: input.caller.user.role } };
  },
});

/** A page whose props say what they were given: the decoded fields that passed, not the raw query. */
const page = defineEndpoint({
  method: 'GET',
  path: '/probe/page',
  action: 'probe.page',
  auth: 'optional',
  query: Type.Object({
    n: Type.Optional(Type.Integer()),
    word: Type.Optional(Type.String({ maxLength: 3 })),
  }),
  responses: { 200: Answer },
  page: (ctx) => html`<p id="props">${String(ctx.props)}</p>`,
  pageProps: ({ query }) => {
    expectTypeOf(query.n).toEqualTypeOf<number | undefined>();
    return `n:${typeof query.n} word:${query.word ?? 'none'}`;
  },
  async handler() {
    return { status: 'success', data: { role: 'none' }, render: true };
  },
});

const probe = definePlugin({
  id: 'probe',
  endpoints: [
    adminRead,
    adminChange,
    optional,
    session,
    page,
    orgEndpoint('/probe/orgs/:id/owner', 'owner'),
    orgEndpoint('/probe/orgs/:id/admin', 'admin'),
    orgEndpoint('/probe/orgs/:id/member', 'member'),
    orgEndpoint('/probe/orgs/:id/permission', 'projects:update'),
  ],
  errorCodes: [
    'probe.admin_read',
    'probe.admin_change',
    'probe.optional',
    'probe.session',
    'probe.org',
    'probe.page',
  ],
});

describe('endpoint access rules', () => {
  let t: ApiApp;
  beforeAll(async () => {
    t = await startTenantApp({
      plugins: [...defaultPlugins(), organizations({ roles: DEMO_ROLES }), probe],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("auth 'admin': 401 without a caller, 403 for a non-admin, reads with the role, changes with sudo", async () => {
    expect((await t.client().get('/probe/admin')).status).toBe(401);

    const user = await t.createUser();
    const plain = await t.signIn(user);
    await elevate(plain);
    for (const method of ['GET', 'POST'] as const) {
      const refused = await plain.request(method, '/probe/admin', 'json', method === 'POST' ? {} : undefined);
      expect(refused.status, method).toBe(403);
      expect(refused.body.action).toBe('admin.forbidden');
    }

    const root = await t.createUser();
    await grantAdminRole(t.services.db, root.email);
    const admin = await t.signIn(root);
    const read = await admin.get('/probe/admin');
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.role).toBe('admin');
    const withoutSudo = await admin.post('/probe/admin', {});
    expect(withoutSudo.status).toBe(403);
    expect(withoutSudo.body.action).toBe('sudo.required');
    await elevate(admin);
    const changed = await admin.post('/probe/admin', {});
    expect(changed.status, changed.text).toBe(200);
  });

  it('orgRole: 404 for a non-member, 403 short of the role, the membership for the rest', async () => {
    const owner = await t.createUser();
    const ownerC = await t.signIn(owner);
    const id = await createOrganization(ownerC, `Probe ${Date.now()}`);
    const roles = { admin: 'admin', member: 'member', viewer: 'viewer' } as const;
    const clients: Record<string, Awaited<ReturnType<typeof t.signIn>>> = { owner: ownerC };
    for (const [name, role] of Object.entries(roles)) {
      const user = await t.createUser();
      await addMember(t, id, user, role);
      clients[name] = await t.signIn(user);
    }
    clients.outsider = await t.signIn(await t.createUser());

    const expected: Record<string, Record<string, number>> = {
      owner: { owner: 200, admin: 403, member: 403, viewer: 403, outsider: 404 },
      admin: { owner: 200, admin: 200, member: 403, viewer: 403, outsider: 404 },
      member: { owner: 200, admin: 200, member: 200, viewer: 200, outsider: 404 },
      // DEMO_ROLES: member holds projects:update, viewer does not; owner and admin hold everything.
      permission: { owner: 200, admin: 200, member: 200, viewer: 403, outsider: 404 },
    };
    for (const [endpoint, answers] of Object.entries(expected)) {
      for (const [who, status] of Object.entries(answers)) {
        const answer = await clients[who]!.get(`/probe/orgs/${id}/${endpoint}`);
        expect(answer.status, `${who} on ${endpoint}: ${answer.text}`).toBe(status);
        if (status === 200)
          expect(answer.body.data.role).toBe(who === 'owner' ? 'owner' : roles[who as 'admin']);
      }
    }
    // An id naming nothing, or not an id: 404 like a non-member's.
    for (const bad of ['999999', 'abc', '0'])
      expect((await ownerC.get(`/probe/orgs/${bad}/member`)).status, bad).toBe(404);
  });

  it('a page reads the input decoded as the handler does, without the fields that failed', async () => {
    const valid = await t.client().request('GET', '/probe/page?n=5&word=abc', 'form');
    expect(valid.text).toContain('n:number word:abc');
    // A refused request's page (422) gets the fields that passed only.
    const refused = await t.client().request('GET', '/probe/page?n=5&word=toolong', 'form');
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('n:number word:none');
  });

  it('the auth OpenAPI document shows the admin rule and the organization role', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/docs' })).json();
    const change = document.paths['/probe/admin'].post;
    expect(change['x-role']).toBe('admin');
    expect(change.description).toContain('Administrators only');
    expect(change.description).toContain('sudo');
    expect(change.responses['403']).toBeDefined();
    expect(document.paths['/probe/admin'].get.description).not.toContain('sudo');
    const owner = document.paths['/probe/orgs/{id}/owner'].get;
    expect(owner['x-org-role']).toBe('owner');
    expect(owner.description).toContain('an owner of the organization');
    expect(Object.keys(owner.responses)).toEqual(expect.arrayContaining(['403', '404']));
    // The built-in endpoints declare theirs.
    expect(document.paths['/admin/users/{id}/disable'].post['x-role']).toBe('admin');
    expect(document.paths['/organizations/{id}'].delete['x-org-role']).toBe('owner');
  });
});
