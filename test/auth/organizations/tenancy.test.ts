import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import type { TestClient } from '../../support/client.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { addMember, createOrganization, startTenantApp, tenantApi } from './fixture.ts';
import { buildOpenApiDocument } from '../../../src/api/openapi/document.ts';

describe('tenant-scoped resources (contract section 17)', () => {
  let t: ApiApp;
  let alice: UserRecord;
  let bob: UserRecord;
  let carol: UserRecord;
  let dave: UserRecord;
  let aliceC: TestClient;
  let bobC: TestClient;
  let carolC: TestClient;
  let daveC: TestClient;
  let orgA: number;
  let orgB: number;
  let aliceProject: string;
  let bobProject: string;
  /** The stored id of a project by its name. */
  const rawId = async (name: string) =>
    (
      (await t.services.db
        .selectFrom('projects' as never)
        .select('id' as never)
        .where('name' as never, '=', name as never)
        .executeTakeFirstOrThrow()) as { id: number }
    ).id;

  const token = async (user: UserRecord, abilities: string[], organizationId: number | null) =>
    (
      await t.services.tokens.issue({
        userId: user.id,
        name: 'test',
        abilities,
        expiresAt: null,
        organizationId,
      })
    ).token;

  beforeAll(async () => {
    t = await startTenantApp();
    alice = await t.createUser({ username: 'alice' });
    bob = await t.createUser({ username: 'bob' });
    carol = await t.createUser({ username: 'carol' });
    dave = await t.createUser({ username: 'dave' });
    aliceC = await t.signIn(alice);
    bobC = await t.signIn(bob);
    carolC = await t.signIn(carol);
    daveC = await t.signIn(dave);
    orgA = await createOrganization(aliceC, 'Acme');
    orgB = await createOrganization(bobC, 'Bobcorp');
    await addMember(t, orgA, carol, 'viewer');
    expect((await carolC.post('/organizations/active', { organization_id: orgA })).status).toBe(200);
    const a = await aliceC.post('/api/v1/projects', { name: 'Apollo secret', description: 'moon' });
    expect(a.status, a.text).toBe(201);
    aliceProject = a.body.data.id;
    expect(a.body.data.organization_id).toBe(orgA);
    const b = await bobC.post('/api/v1/projects', { name: 'Borealis' });
    expect(b.status, b.text).toBe(201);
    bobProject = b.body.data.id;
    expect(b.body.data.organization_id).toBe(orgB);
  });
  afterAll(async () => t?.close());

  it('lists, counts and searches only the active organization’s rows', async () => {
    const list = await bobC.get('/api/v1/projects?count=exact');
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([bobProject]);
    expect(list.body.pagination.total).toBe(1);
    const search = await bobC.get('/api/v1/projects?search=apollo');
    expect(search.body.data).toEqual([]);
    const mine = await aliceC.get('/api/v1/projects?search=apollo');
    expect(mine.body.data.map((p: { id: string }) => p.id)).toEqual([aliceProject]);
  });

  it('another organization’s row is 404 to read, change and delete, and stays as it was', async () => {
    expect((await bobC.get(`/api/v1/projects/${aliceProject}`)).status).toBe(404);
    expect((await bobC.patch(`/api/v1/projects/${aliceProject}`, { name: 'taken' })).status).toBe(404);
    expect(
      (await bobC.request('PUT', `/api/v1/projects/${aliceProject}`, 'json', { name: 'x' })).status,
    ).toBe(404);
    expect((await bobC.delete(`/api/v1/projects/${aliceProject}`)).status).toBe(404);
    const row = await t.services.db
      .selectFrom('projects' as never)
      .selectAll()
      .where('id' as never, '=', (await rawId('Apollo secret')) as never)
      .executeTakeFirst();
    expect(row).toMatchObject({ name: 'Apollo secret', organization_id: orgA });
  });

  it('writes set the tenant column and refuse another value (422 naming it)', async () => {
    const other = await aliceC.post('/api/v1/projects', { name: 'Sneaky', organization_id: orgB });
    expect(other.status).toBe(422);
    expect(other.body.invalid_params).toEqual([expect.objectContaining({ name: 'organization_id' })]);
    const same = await aliceC.post('/api/v1/projects', { name: 'Explicit', organization_id: orgA });
    expect(same.status, same.text).toBe(201);
    expect(same.body.data.organization_id).toBe(orgA);
    const patch = await aliceC.patch(`/api/v1/projects/${aliceProject}`, { organization_id: orgB });
    expect(patch.status).toBe(422);
    expect(patch.body.invalid_params[0].name).toBe('organization_id');
    const bulk = await aliceC.post('/api/v1/projects', [
      { name: 'ok' },
      { name: 'no', organization_id: orgB },
    ]);
    expect(bulk.status).toBe(422);
    expect(bulk.body.invalid_params[0].name).toBe('[1].organization_id');
  });

  it('a hook cannot move a row to another organization', async () => {
    const task = await aliceC.post('/api/v1/tasks', { project_id: aliceProject, title: 'Launch' });
    expect(task.status, task.text).toBe(201);
    expect(task.body.data.organization_id).toBe(orgA);
    const patched = await aliceC.patch(`/api/v1/tasks/${task.body.data.id}`, { title: 'Launch!' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.organization_id).toBe(orgA);
  });

  it('derive embeds only the active organization’s related rows', async () => {
    // A task of organization B that points at A's project (written straight to the table).
    await t.services.db
      .insertInto('tasks' as never)
      .values({
        organization_id: orgB,
        project_id: await rawId('Apollo secret'),
        title: 'Foreign',
        created_at: '2026-01-01T00:00:00.000Z',
      } as never)
      .execute();
    const one = await aliceC.get(`/api/v1/projects/${aliceProject}?derive=tasks`);
    expect(one.status).toBe(200);
    expect(one.body.data.tasks.map((task: { title: string }) => task.title)).toEqual(['Launch!']);
    const list = await bobC.get('/api/v1/tasks?derive=project');
    expect(list.status, list.text).toBe(200);
    // B sees its task row, but not A's project through it.
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].project).toBeNull();
  });

  it('a cursor made in one organization reads nothing of it in another', async () => {
    for (let i = 0; i < 3; i++) await aliceC.post('/api/v1/projects', { name: `A${i}` });
    const first = await aliceC.get('/api/v1/projects?limit=1&sort=id');
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toBeTruthy();
    const stolen = await bobC.get(`/api/v1/projects?limit=1&sort=id&cursor=${encodeURIComponent(cursor)}`);
    // The cursor is a position, not a permission: it continues in the reader's own organization.
    expect(stolen.status).toBe(200);
    for (const row of stolen.body.data) expect(row.organization_id).toBe(orgB);
    const next = await aliceC.get(`/api/v1/projects?limit=1&sort=id&cursor=${encodeURIComponent(cursor)}`);
    expect(next.body.data[0].organization_id).toBe(orgA);
  });

  it('no active organization → 403; anonymous → 401', async () => {
    const none = await daveC.get('/api/v1/projects');
    expect(none.status).toBe(403);
    expect(none.body.detail).toMatch(/active organization/);
    expect((await daveC.post('/api/v1/projects', { name: 'x' })).status).toBe(403);
    expect((await t.client().get('/api/v1/projects')).status).toBe(401);
    // Choosing an organization one is not a member of is a 404, and changes nothing.
    expect((await daveC.post('/organizations/active', { organization_id: orgA })).status).toBe(404);
    expect((await daveC.get('/api/v1/projects')).status).toBe(403);
  });

  it("each verb needs the role's permission", async () => {
    expect((await carolC.get('/api/v1/projects')).status).toBe(200);
    const create = await carolC.post('/api/v1/projects', { name: 'viewer write' });
    expect(create.status).toBe(403);
    expect(create.body.detail).toMatch(/projects:create/);
    expect((await carolC.delete(`/api/v1/projects/${aliceProject}`)).status).toBe(403);
  });

  it('role × token abilities: both must allow the verb', async () => {
    const matrix: [UserRecord, number, string[], 'get' | 'post', number][] = [
      [alice, orgA, ['*'], 'post', 201],
      [alice, orgA, ['projects:read'], 'get', 200],
      [alice, orgA, ['projects:read'], 'post', 403],
      [alice, orgA, ['projects:*'], 'post', 201],
      [alice, orgA, ['posts:*'], 'get', 403],
      [carol, orgA, ['*'], 'get', 200],
      [carol, orgA, ['*'], 'post', 403],
      [carol, orgA, ['projects:create'], 'post', 403],
    ];
    for (const [user, org, abilities, verb, status] of matrix) {
      const bearer = await token(user, abilities, org);
      const response =
        verb === 'get'
          ? await t.client().get('/api/v1/projects', 'json', { token: bearer })
          : await t.client().post('/api/v1/projects', { name: 'by token' }, 'json', { token: bearer });
      expect(response.status, `${user.username} ${abilities.join()} ${verb}`).toBe(status);
      if (status === 200) for (const row of response.body.data) expect(row.organization_id).toBe(org);
    }
    // A token made without an organization acts in none.
    const plain = await token(alice, ['*'], null);
    expect((await t.client().get('/api/v1/projects', 'json', { token: plain })).status).toBe(403);
    // A token for an organization its owner has left acts in none either.
    const leaving = await token(carol, ['*'], orgA);
    await t.services.db.deleteFrom('organization_members').where('user_id', '=', carol.id).execute();
    expect((await t.client().get('/api/v1/projects', 'json', { token: leaving })).status).toBe(403);
    expect((await carolC.get('/api/v1/projects')).status).toBe(403);
    await addMember(t, orgA, carol, 'viewer');
  });

  it('POST /tokens with organization_id: only an organization of the caller', async () => {
    // Through a token holding tokens:create (no sudo needed), made for A.
    const maker = await token(alice, ['*'], orgA);
    const forB = await t
      .client()
      .post('/tokens', { name: 'b', organization_id: orgB }, 'json', { token: maker });
    expect(forB.status).toBe(422);
    expect(forB.body.errors.organization_id).toBeTruthy();
    const inherited = await t.client().post('/tokens', { name: 'a' }, 'json', { token: maker });
    expect(inherited.status, inherited.text).toBe(201);
    const list = await t.client().get('/api/v1/projects', 'json', { token: inherited.body.token });
    expect(list.status).toBe(200);
    for (const row of list.body.data) expect(row.organization_id).toBe(orgA);
  });

  it('an idempotency key used in another organization is not a replay of the first', async () => {
    const first = await aliceC.post('/api/v1/projects', { name: 'Keyed' }, 'json', {
      headers: { 'idempotency-key': 'key-1' },
    });
    expect(first.status).toBe(201);
    const replay = await aliceC.post('/api/v1/projects', { name: 'Keyed' }, 'json', {
      headers: { 'idempotency-key': 'key-1' },
    });
    expect(replay.body.data.id).toBe(first.body.data.id);
    const second = await aliceC.post('/organizations', { name: 'Alice two' });
    expect(second.status).toBe(201);
    const elsewhere = await aliceC.post('/api/v1/projects', { name: 'Keyed' }, 'json', {
      headers: { 'idempotency-key': 'key-1' },
    });
    expect(elsewhere.status).toBe(422);
    expect((await aliceC.post('/organizations/active', { organization_id: orgA })).status).toBe(200);
  });

  it('the OpenAPI document marks tenant-scoped operations', async () => {
    const document = buildOpenApiDocument(tenantApi, 'v1') as unknown as {
      paths: Record<string, Record<string, { description: string; responses: Record<string, unknown> }>>;
    };
    const list = document.paths['/projects']!.get as unknown as Record<string, unknown> & {
      description: string;
      responses: Record<string, unknown>;
    };
    expect(list['x-citadel-tenant']).toBe('organization_id');
    expect(list.description).toMatch(/Tenant-scoped by `organization_id`/);
    expect(list.responses['403']).toBeTruthy();
  });

  it('GET /me carries the active organization', async () => {
    const me = await aliceC.get('/me');
    expect(me.body.organization).toEqual({ id: orgA, name: 'Acme', slug: 'acme', role: 'owner' });
    const none = await daveC.get('/me');
    expect(none.body.organization).toBeNull();
    const bearer = await token(carol, ['*'], orgA);
    const viaToken = await t.client().get('/me', 'json', { token: bearer });
    expect(viaToken.body.organization).toMatchObject({ id: orgA, role: 'viewer' });
  });
});
