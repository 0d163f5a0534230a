// Type test (compiled by test/client/types.test.ts, and by `npm run typecheck`): what a correct
// program writes with the typed client, and the types it gets. Zero errors expected.
import {
  createClient,
  type ClientError,
  type Pagination,
  type TenantOf,
  type TenantScoped,
} from '../../../src/client/index.ts';
import type {
  demoConfig,
  noPluginsConfig,
  pluginConfig,
  tenantConfig,
  withoutMagicLinkConfig,
} from './fixtures.ts';

/** Compile-time equality: `expectType<Exact<A, B>>(true)` fails to compile unless A and B are the same. */
type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(value: T): T {
  return value;
}

export async function demo(): Promise<void> {
  const client = createClient<typeof demoConfig>({ baseUrl: 'http://localhost:3000' });

  // Auth: one method per endpoint, named after its path.
  const login = await client.auth.login({ email: 'ada@example.com', password: 'secret secret' });
  if (login.error) {
    const error: ClientError = login.error;
    const field: string | undefined = error.errors?.credentials;
    void field;
  } else {
    expectType<Exact<typeof login.data.status, 'success' | 'info' | 'error'>>(true);
    const name: string | undefined = login.data.user?.username;
    void name;
  }
  const me = await client.auth.me();
  if (me.data) expectType<Exact<typeof me.data.user.id, number>>(true);
  await client.auth.register({
    username: 'ada',
    email: 'ada@example.com',
    password: 'secret secret',
    password_confirm: 'secret secret',
  });
  await client.auth.logout();
  await client.auth.forgotPassword({ email: 'ada@example.com' });
  await client.auth.resetPassword.send({ token: 't', password: 'x', password_confirm: 'x' });
  const usable = await client.auth.resetPassword.get({ token: 't' });
  if (usable.data) expectType<Exact<typeof usable.data.data.token_valid, boolean>>(true);
  await client.auth.magicLink.send({ email: 'ada@example.com' });
  await client.auth.magicLink.verify({ token: 'abc' });
  const step = await client.auth.action.show();
  if (step.data) expectType<Exact<typeof step.data.data.action, string>>(true);
  await client.auth.action.handle({ code: '123456' });
  await client.auth.action.challenge();
  await client.auth.action.cancel();
  await client.auth.sudo.get();
  await client.auth.sudo.verify({ factor: 'password', proof: 'secret secret' });
  await client.auth.sudo.exit();
  await client.auth.twoFactor.get();
  await client.auth.twoFactor.enroll.start({ factor: 'totp' });
  await client.auth.twoFactor.enroll.confirm({ factor: 'totp', proof: '123456' });
  const tokens = await client.auth.tokens.list();
  if (tokens.data) void tokens.data.tokens;
  const created = await client.auth.tokens.create({ name: 'ci', abilities: ['posts:read'] });
  if (created.data) expectType<Exact<typeof created.data.token, string>>(true);
  await client.auth.tokens.delete({ id: '1' });
  await client.auth.account.get();
  await client.auth.account.username({ username: 'ada2' });
  await client.auth.account.email.send({ email: 'new@example.com' });
  await client.auth.account.events({ page: 2 });
  const sessions = await client.auth.sessions.list();
  if (sessions.data) void sessions.data.data.sessions;
  await client.auth.sessions.delete({ id: 'abc' });
  await client.auth.sessions.revokeOthers();
  await client.auth.passkey.login.options();
  await client.auth.get();

  // Resources: records typed from the columns, narrowed by `fields`, extended by `derive`.
  const page = await client.api.v1.posts.list({
    fields: ['title'],
    derive: ['comments', 'author'],
    sort: ['-created_at', 'title'],
    filter: { status: { eq: 'published' }, or: [{ pinned: { eq: true } }] },
    limit: 10,
  });
  if (page.error === null) {
    const pagination: Pagination = page.pagination;
    const next: string | null = pagination.nextCursor;
    void next;
    const post = page.data[0]!;
    void post;
    expectType<Exact<keyof typeof post, 'id' | 'title' | 'comments' | 'author'>>(true);
    expectType<Exact<typeof post.id, string>>(true);
    expectType<Exact<(typeof post.comments)[number]['post_id'], string>>(true);
    expectType<Exact<typeof post.author, { id: string; username: string } | null>>(true);
  }
  const one = await client.api.v1.posts.get('xYz12345', { derive: ['comments.post'] });
  if (one.data) {
    expectType<Exact<typeof one.data.pinned, boolean>>(true);
    expectType<Exact<typeof one.data.excerpt, string>>(true);
    expectType<Exact<(typeof one.data.comments)[number]['post'], (typeof one.data.comments)[number]['post']>>(
      true,
    );
    const title: string | undefined = one.data.comments[0]?.post?.title;
    void title;
  }
  const made = await client.api.v1.posts.create({
    title: 'Hello',
    body: 'World',
    comments: [{ author_name: 'Ann', body: 'First' }],
  });
  if (made.data) expectType<Exact<typeof made.data.id, string>>(true);
  const many = await client.api.v1.posts.create([
    { title: 'One', body: '1' },
    { title: 'Two', body: '2' },
  ]);
  if (many.data) expectType<Exact<(typeof many.data)[number]['title'], string>>(true);
  await client.api.v1.posts.update('xYz12345', {
    status: 'published',
    comments: [{ id: 'c1', _delete: true }],
  });
  await client.api.v1.posts.replace('xYz12345', { title: 'T', body: 'B', status: 'draft' });
  const gone = await client.api.v1.posts.delete('xYz12345');
  if (gone.data) expectType<Exact<typeof gone.data.id, string>>(true);
  await client.api.v1.comments.list({ filter: { post_id: { in: ['a', 'b'] } } });
  await client.api.v1.comments.update('c1', { body: 'edited' });
  await client.api.v2.posts.list({ cursor: 'abc', count: 'none' });

  // Live (`live: true`): typed events, the record narrowed by `fields`, none on `deleted`.
  const live = client.api.v1.posts.live({ filter: { status: { eq: 'published' } }, fields: ['title'] });
  for await (const change of live) {
    expectType<Exact<typeof change.type, 'created' | 'updated' | 'deleted' | 'reset'>>(true);
    expectType<Exact<typeof change.id, string>>(true);
    if (change.type === 'created' || change.type === 'updated')
      expectType<Exact<typeof change.data.record, { id: string; title: string }>>(true);
    else if (change.type === 'deleted') expectType<Exact<typeof change.data, { id: string }>>(true);
    else expectType<Exact<typeof change.data, Record<string, never>>>(true);
  }
  const resumeFrom: string = live.lastEventId;
  const why: ClientError | null = live.error;
  void [resumeFrom, why];
  const whole = client.api.v2.posts.live(undefined, {
    lastEventId: resumeFrom,
    signal: AbortSignal.timeout(1),
  });
  const first = await whole.next();
  if (!first.done && first.value.type === 'created')
    expectType<Exact<typeof first.value.data.record.pinned, boolean>>(true);
  await whole.return?.();
  const board = client.api.v1.projects.live({ fields: ['name'] });
  for await (const change of board)
    if (change.type === 'updated') expectType<Exact<typeof change.data.record.name, string>>(true);
}

export async function withPlugin(): Promise<void> {
  const client = createClient<typeof pluginConfig>({
    baseUrl: 'http://localhost:3000',
    token: 'citadel_pat_x',
  });
  const pinned = await client.auth.notes.pin({ id: 'n1', on: true });
  if (pinned.data) expectType<Exact<typeof pinned.data.data.pinned, boolean>>(true);
  const notes = await client.auth.notes.get({ tag: 'work' });
  if (notes.data) expectType<Exact<typeof notes.data.data.notes, string[]>>(true);
  await client.auth.login({ username: 'ada', password: 'x' });
}

export async function withoutPlugins(): Promise<void> {
  // `defineConfig({ api })`: the built-ins, typed as with `plugins: defaultPlugins()`.
  const client = createClient<typeof noPluginsConfig>({ baseUrl: 'http://localhost:3000' });
  const login = await client.auth.login({ email: 'ada@example.com', password: 'secret secret' });
  if (login.data) expectType<Exact<typeof login.data.status, 'success' | 'info' | 'error'>>(true);
  const me = await client.auth.me();
  if (me.data) expectType<Exact<typeof me.data.user.id, number>>(true);
  await client.auth.magicLink.send({ email: 'ada@example.com' });
  await client.auth.tokens.create({ name: 'ci', abilities: ['posts:read'] });
  const page = await client.api.v1.posts.list({ fields: ['title'] });
  if (page.data) expectType<Exact<keyof (typeof page.data)[number], 'id' | 'title'>>(true);

  const lean = createClient<typeof withoutMagicLinkConfig>({ baseUrl: 'http://localhost:3000' });
  await lean.auth.login({ email: 'ada@example.com', password: 'secret secret' });
  await lean.auth.forgotPassword({ email: 'ada@example.com' });
}

export async function tenancy(): Promise<void> {
  const client = createClient<typeof demoConfig>({ baseUrl: 'http://localhost:3000' });
  await client.auth.organizations.create({ name: 'Acme' });
  await client.auth.organizations.active({ organization_id: 1 });

  // The mark: projects are tenant-scoped by organization_id; posts are not.
  const projects: TenantScoped<'organization_id'> = client.api.v1.projects;
  const anyTenant: TenantScoped = client.api.v1.projects;
  void projects;
  void anyTenant;
  expectType<Exact<TenantOf<typeof client.api.v1.projects>, 'organization_id'>>(true);
  expectType<Exact<TenantOf<typeof client.api.v1.posts>, never>>(true);
  expectType<Exact<TenantOf<typeof client.api.v1.comments>, never>>(true);

  // Writes leave the tenant column out (the server sets it), or give the active organization's id.
  const made = await client.api.v1.projects.create({ name: 'Apollo' });
  if (made.data) {
    expectType<Exact<typeof made.data.organization_id, number>>(true);
    expectType<Exact<typeof made.data.id, string>>(true);
  }
  await client.api.v1.projects.create([{ name: 'One' }, { name: 'Two', description: null }]);
  await client.api.v1.projects.create({ name: 'Same organization', organization_id: 7 });
  await client.api.v1.projects.update('p1', { description: 'moon' });
  await client.api.v1.projects.update('p1', { organization_id: 7 });
  await client.api.v1.projects.replace('p1', { name: 'Apollo 2' });
  const page = await client.api.v1.projects.list({ search: 'apollo', sort: ['-created_at'] });
  if (page.data) expectType<Exact<(typeof page.data)[number]['organization_id'], number>>(true);
  await client.api.v1.projects.delete('p1');

  // Nested children of a tenant-scoped resource: their tenant column is optional too.
  const tenant = createClient<typeof tenantConfig>({ baseUrl: 'http://localhost:3000' });
  expectType<Exact<TenantOf<typeof tenant.api.v1.tasks>, 'organization_id'>>(true);
  await tenant.api.v1.projects.create({ name: 'Apollo', tasks: [{ title: 'Launch' }] });
  await tenant.api.v1.projects.create({ name: 'Apollo', tasks: [{ title: 'Land', organization_id: 7 }] });
}
