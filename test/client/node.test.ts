// citadel/client in Node against a real server (listening on loopback) on the run's database:
// auth flows (registration, sign-in, the pipeline's two-factor step, sudo, tokens, sessions) and
// the demo's resource API (CRUD, fields, derive, filters, pagination and cursors).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type CitadelClient } from '../../src/client/index.ts';
import { startListeningTestApp } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import { totpCode } from '../support/factors.ts';
import { BUILT_IN_NAMES } from './types/names.ts';
import { cookieFetch } from './support.ts';
import type demoConfig from '../../examples/blog/citadel.config.ts';

type Client = CitadelClient<typeof demoConfig>;

let t: TestApp;
let base: string;

beforeAll(async () => {
  ({ t, base } = await startListeningTestApp({ api: blogApi, migrations: blogMigrations }));
});
afterAll(async () => t?.close());

/** A client with its own cookie jar (a browser of its own). */
function browserLike(): { client: Client; jar: Map<string, string> } {
  const { fetch, jar } = cookieFetch();
  return { client: createClient<typeof demoConfig>({ baseUrl: base, fetch }), jar };
}

let counter = 0;
function account() {
  counter += 1;
  const name = `client${process.pid}x${counter}`;
  return {
    username: name,
    email: `${name}@example.com`,
    password: TEST_PASSWORD,
    password_confirm: TEST_PASSWORD,
  };
}

describe('client.auth in Node', () => {
  it('names every endpoint of GET /endpoints by the rule its types use', async () => {
    const response = await fetch(`${base}/endpoints`, { headers: { accept: 'application/json' } });
    const body = (await response.json()) as {
      data: { endpoints: { method: string; path: string }[]; api: string };
    };
    const { clientNames } = await import('../../src/client/naming.ts');
    expect([...clientNames(body.data.endpoints).keys()].sort()).toEqual(
      [...BUILT_IN_NAMES, 'endpoints'].sort(),
    );
    expect(body.data.api).toBe('/api');
  });

  it('registers, reads the caller, signs out; HTTP errors resolve as { data: null, error }', async () => {
    const { client, jar } = browserLike();
    const input = account();
    const registered = await client.auth.register(input);
    expect(registered.error).toBeNull();
    expect(registered.data).toMatchObject({ action: 'register.attempt', status: 'success', statusCode: 201 });
    expect(jar.has('citadel_session')).toBe(true);
    const me = await client.auth.me();
    expect(me.data?.user.username).toBe(input.username);
    expect((await client.auth.logout()).data?.action).toBe('logout');
    const after = await client.auth.me();
    expect(after.data).toBeNull();
    expect(after.error).toMatchObject({ status: 401, action: 'me' });

    const wrong = await client.auth.login({ email: input.email, password: 'not the password at all' });
    expect(wrong.error).toMatchObject({ status: 401, message: 'Invalid credentials.' });
    expect(wrong.error?.errors?.credentials).toBeTruthy();
    // A body the types would refuse, sent anyway: the server's 422 with the field named.
    const invalid = await client.auth.login({ email: input.email } as never);
    expect(invalid.error).toMatchObject({ status: 422, message: 'Validation failed.' });
    expect(invalid.error?.errors?.password).toBeTruthy();
    const signedIn = await client.auth.login({ email: input.email, password: TEST_PASSWORD });
    expect(signedIn.data?.user?.email).toBe(input.email);
  });

  it('sudo, personal access tokens (a bearer client), two-factor enrollment and sign-in through the pipeline', async () => {
    const { client } = browserLike();
    const input = account();
    await client.auth.register(input);

    // Sudo required: the error carries the envelope (data.factors), then sudo.verify elevates.
    const refused = await client.auth.tokens.create({ name: 'ci', abilities: ['*'] });
    expect(refused.error).toMatchObject({ status: 403, action: 'sudo.required' });
    expect((refused.error?.body as { data: { factors: string[] } }).data.factors).toContain('password');
    const wrongProof = await client.auth.sudo.verify({ factor: 'password', proof: 'wrong password here' });
    expect(wrongProof.error).toMatchObject({ status: 422 });
    expect(wrongProof.error?.errors?.proof).toBeTruthy();
    expect((await client.auth.sudo.verify({ factor: 'password', proof: TEST_PASSWORD })).data?.action).toBe(
      'sudo.verified',
    );
    expect((await client.auth.sudo.get()).data?.data.active).toBe(true);

    const created = await client.auth.tokens.create({ name: 'ci', abilities: ['*'] });
    expect(created.error).toBeNull();
    const token = created.data!.token;
    expect(token).toMatch(/^citadel_pat_/);
    const bearer = createClient<typeof demoConfig>({ baseUrl: base, token });
    expect((await bearer.auth.me()).data?.user.username).toBe(input.username);
    const listed = await bearer.auth.tokens.list();
    expect(listed.data?.tokens.map((row) => row.name)).toEqual(['ci']);
    expect((await client.auth.tokens.delete({ id: String(created.data!.token_id) })).data?.action).toBe(
      'tokens.revoke',
    );
    expect((await bearer.auth.me()).error).toMatchObject({ status: 401 });
    expect((await client.auth.tokens.delete({ id: String(created.data!.token_id) })).error).toMatchObject({
      status: 404,
    });

    // TOTP: enroll (sudo is still on), then the next sign-in stops at the two_factor step.
    const start = await client.auth.twoFactor.enroll.start({ factor: 'totp' });
    const secret = (start.data?.data as { secret: string }).secret;
    const confirm = await client.auth.twoFactor.enroll.confirm({
      factor: 'totp',
      proof: totpCode(t, secret),
    });
    expect(confirm.error).toBeNull();
    expect((confirm.data?.data as { recovery_codes: string[] }).recovery_codes).toHaveLength(10);
    expect((await client.auth.twoFactor.get()).data?.data.enrolled_factors).toBeTruthy();
    await client.auth.logout();

    const other = browserLike().client;
    const login = await other.auth.login({ email: input.email, password: TEST_PASSWORD });
    expect(login.data).toMatchObject({ action: 'login.action_required', status: 'info' });
    expect(login.data?.user).toBeUndefined();
    const step = await other.auth.action.show();
    expect(step.data?.data.action).toBe('two_factor');
    const bad = await other.auth.action.handle({ factor: 'totp', proof: '000000' } as never);
    expect(bad.error?.status).toBeGreaterThanOrEqual(400);
    t.clock.advance(30);
    const done = await other.auth.action.handle({ factor: 'totp', proof: totpCode(t, secret) } as never);
    expect(done.data).toMatchObject({ action: 'action.success', status: 'success' });
    expect((await other.auth.me()).data?.user.email).toBe(input.email);
  });

  it('lists and ends sessions', async () => {
    const input = account();
    const first = browserLike();
    await first.client.auth.register(input);
    const second = browserLike();
    await second.client.auth.login({ email: input.email, password: TEST_PASSWORD });
    const third = browserLike();
    await third.client.auth.login({ email: input.email, password: TEST_PASSWORD });

    const sessions = await first.client.auth.sessions.list();
    const rows = sessions.data!.data.sessions;
    expect(rows).toHaveLength(3);
    const others = rows.filter((row) => !row.current);
    expect((await first.client.auth.sessions.delete({ id: others[0]!.id })).data?.action).toBe(
      'sessions.revoke',
    );
    const left = (await first.client.auth.sessions.list()).data!.data.sessions;
    expect(left).toHaveLength(2);
    const revoked = await first.client.auth.sessions.revokeOthers();
    expect(revoked.data?.data.revoked).toBe(1);
    expect((await second.client.auth.me()).error?.status).toBe(401);
    expect((await third.client.auth.me()).error?.status).toBe(401);
    expect((await first.client.auth.me()).data?.user.email).toBe(input.email);
    expect((await first.client.auth.account.get()).data?.data.has_password).toBe(true);
  });

  it('a network failure rejects', async () => {
    const closed = createClient<typeof demoConfig>({ baseUrl: 'http://127.0.0.1:9' });
    await expect(closed.auth.me()).rejects.toThrow();
    await expect(closed.api.v1.posts.list()).rejects.toThrow();
  });
});

describe('client.api in Node', () => {
  it('creates, reads with fields and derive, pages with cursors, updates, replaces and deletes', async () => {
    const { client } = browserLike();
    await client.auth.register(account());
    const api = client.api.v1;

    const one = await api.posts.create({
      title: 'First post',
      body: 'Hello from the typed client',
      status: 'published',
      comments: [{ author_name: 'Ann', body: 'Nice' }],
    });
    expect(one.error).toBeNull();
    const id = one.data!.id;
    expect(typeof id).toBe('string');
    expect(one.data).not.toHaveProperty('author_id');

    const bulk = await api.posts.create(
      Array.from({ length: 4 }, (_, i) => ({
        title: `Bulk post ${i}`,
        body: `Body ${i}`,
        status: 'draft' as const,
      })),
    );
    expect(bulk.data).toHaveLength(4);

    const narrow = await api.posts.get(id, { fields: ['title'], derive: ['comments', 'author'] });
    expect(Object.keys(narrow.data!).sort()).toEqual(['author', 'comments', 'id', 'title']);
    expect(narrow.data!.comments[0]!.body).toBe('Nice');
    expect(typeof narrow.data!.author!.username).toBe('string');

    const deep = await api.posts.get(id, { derive: ['comments.post'] });
    expect(deep.data!.comments[0]!.post!.title).toBe('First post');
    expect(deep.data!.excerpt).toBe('Hello from the typed client');

    const drafts = await api.posts.list({ filter: { status: { eq: 'draft' } }, sort: ['title'], limit: 3 });
    expect(drafts.error).toBeNull();
    expect(drafts.data!.map((post) => post.title)).toEqual(['Bulk post 0', 'Bulk post 1', 'Bulk post 2']);
    expect(drafts.pagination).toMatchObject({ page: 1, limit: 3, total: 4, hasMore: true });
    const cursor = drafts.pagination!.nextCursor!;
    expect(typeof cursor).toBe('string');
    const next = await api.posts.list({
      filter: { status: { eq: 'draft' } },
      sort: ['title'],
      limit: 3,
      cursor,
    });
    expect(next.data!.map((post) => post.title)).toEqual(['Bulk post 3']);
    expect(next.pagination!.nextCursor).toBeNull();
    const either = await api.posts.list({
      filter: { or: [{ status: { eq: 'published' } }, { pinned: { eq: true } }] },
      search: 'first',
    });
    expect(either.data!.map((post) => post.id)).toEqual([id]);

    const updated = await api.posts.update(id, { pinned: true });
    expect(updated.data!.pinned).toBe(true);
    const replaced = await api.posts.replace(id, { title: 'Replaced', body: 'New body', status: 'draft' });
    expect(replaced.data).toMatchObject({ title: 'Replaced', status: 'draft' });

    // Errors as problem details: the message is the detail, invalid_params by name.
    const invalid = await api.posts.create({ title: 'x', body: 'short title' });
    expect(invalid.error).toMatchObject({ status: 422 });
    expect(invalid.error!.problem?.invalid_params?.[0]?.name).toBe('title');
    expect(invalid.error!.errors?.title).toBeTruthy();
    const badQuery = await api.posts.list({ sort: ['nope' as 'title'] });
    expect(badQuery).toMatchObject({ data: null, pagination: null, error: { status: 400 } });

    expect((await api.posts.delete(id)).data).toEqual({ id });
    expect((await api.posts.get(id)).error).toMatchObject({ status: 404 });

    // Anonymous callers: 401 on a write, published posts only on reads.
    const anonymous = createClient<typeof demoConfig>({ baseUrl: base, apiBaseUrl: '/api' });
    expect((await anonymous.api.v1.posts.create({ title: 'Nope', body: 'x' })).error?.status).toBe(401);
    expect((await anonymous.api.v2.posts.list()).data!.every((post) => post.status === 'published')).toBe(
      true,
    );
  });
});
