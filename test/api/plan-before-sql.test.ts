import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPlugins, organizations } from '../../src/index.ts';
import { insertPosts, startBlogApp, type ApiApp, type BlogApp } from '../support/api-app.ts';
import { startTenantApp, createOrganization, addMember } from '../auth/organizations/fixture.ts';

// A list read is checked whole (cursor, derive depth, derive authorization) before its first
// statement: a request refused for any of these runs no SQL.

describe('the list plan is checked before any statement (blog, anonymous)', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp({ countQueries: true });
    const author = await t.createUser({ username: 'plan-author' });
    await insertPosts(t, author, [{}, {}, {}]);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function statementsOf(url: string) {
    t.queries.length = 0;
    const response = await t.client().get(url);
    return { response, statements: [...t.queries] };
  }

  it('a valid list runs statements (the count can see them)', async () => {
    const { response, statements } = await statementsOf('/api/v1/posts?limit=1&derive=comments');
    expect(response.status).toBe(200);
    expect(statements.length).toBeGreaterThan(1);
  });

  it('an altered cursor: 400 on "cursor", no SQL', async () => {
    const first = await t.client().get('/api/v1/posts?limit=1&sort=id');
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toBeTruthy();
    for (const url of [
      `/api/v1/posts?limit=1&sort=id&cursor=${cursor.slice(0, -2)}xx`,
      // A cursor of another query (another sort).
      `/api/v1/posts?limit=1&sort=-id&cursor=${cursor}`,
    ]) {
      const { response, statements } = await statementsOf(url);
      expect(response.status, url).toBe(400);
      expect(response.body.detail).toContain('The query parameter "cursor"');
      expect(statements, url).toEqual([]);
    }
  });

  it('a derive deeper than the resource allows: 400 on "derive", no SQL', async () => {
    const { response, statements } = await statementsOf(
      '/api/v1/posts?derive=comments.post.comments.post.comments',
    );
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('levels deep');
    expect(statements).toEqual([]);
  });
});

describe('derive authorization is checked before any statement (tenant-scoped target)', () => {
  let t: ApiApp;
  const queries: string[] = [];
  let reader: string;
  beforeAll(async () => {
    t = await startTenantApp({
      // `reader` may list projects but not read tasks.
      plugins: [...defaultPlugins(), organizations({ roles: { reader: ['projects:read'] } })],
      database: { onQuery: (sql: string) => queries.push(sql) },
    });
    const owner = await t.createUser({ username: 'plan-owner' });
    const organization = await createOrganization(await t.signIn(owner), 'Plan');
    const member = await t.createUser({ username: 'plan-reader' });
    await addMember(t, organization, member, 'reader');
    reader = (
      await t.services.tokens.issue({
        userId: member.id,
        name: 'reader',
        abilities: ['*'],
        expiresAt: null,
        organizationId: organization,
      })
    ).token;
    const ownerToken = (
      await t.services.tokens.issue({
        userId: owner.id,
        name: 'owner',
        abilities: ['*'],
        expiresAt: null,
        organizationId: organization,
      })
    ).token;
    const created = await t.client().post('/api/v1/projects', { name: 'p' }, 'json', { token: ownerToken });
    expect(created.status, created.text).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  // The caller and the organization are resolved first (the credential, the membership): no
  // statement may read the API's tables.
  const readsApiTables = (sql: string) => /\b(projects|tasks)\b/i.test(sql);

  it('a derive of a resource the role may not read: 403 as before, and no statement reads a resource', async () => {
    queries.length = 0;
    const refused = await t.client().get('/api/v1/projects?derive=tasks', 'json', { token: reader });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('"tasks:read"');
    expect(queries.filter(readsApiTables)).toEqual([]);

    queries.length = 0;
    const allowed = await t.client().get('/api/v1/projects', 'json', { token: reader });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toHaveLength(1);
    expect(queries.filter(readsApiTables).length).toBeGreaterThan(0);
  });

  it('the same for a single read', async () => {
    const list = await t.client().get('/api/v1/projects', 'json', { token: reader });
    queries.length = 0;
    const refused = await t
      .client()
      .get(`/api/v1/projects/${list.body.data[0].id}?derive=tasks`, 'json', { token: reader });
    expect(refused.status).toBe(403);
    expect(queries.filter(readsApiTables)).toEqual([]);
  });
});
