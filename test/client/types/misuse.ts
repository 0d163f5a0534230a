// Type test (compiled by test/client/types.test.ts, and by `npm run typecheck`): every line under a
// `@ts-expect-error` is a misuse the client's types must refuse. Should one compile, TypeScript
// reports the directive as unused and the test fails.
import { createClient, type TenantOf, type TenantScoped } from '../../../src/client/index.ts';
import type {
  demoConfig,
  noPluginsConfig,
  pluginConfig,
  tenantConfig,
  withoutMagicLinkConfig,
} from './fixtures.ts';

export async function misuse(): Promise<void> {
  const client = createClient<typeof demoConfig>({ baseUrl: 'http://localhost:3000' });

  // @ts-expect-error a required body field (password) is missing
  await client.auth.login({ email: 'ada@example.com' });
  // @ts-expect-error a field of the wrong type
  await client.auth.magicLink.send({ email: 42 });
  // @ts-expect-error no endpoint has this path
  await client.auth.nothingHere();
  // @ts-expect-error a page-only endpoint (GET /magic-link/sent) has no method
  await client.auth.magicLink.sent();
  // @ts-expect-error tokens.create needs a name
  await client.auth.tokens.create({ abilities: ['*'] });
  // @ts-expect-error the path parameter is required
  await client.auth.tokens.delete();
  const me = await client.auth.me();
  // @ts-expect-error the envelope's user has no password
  if (me.data) void me.data.user.password;

  const page = await client.api.v1.posts.list({ fields: ['title'] });
  if (page.data) {
    // @ts-expect-error `fields` left `body` out of the record
    void page.data[0]!.body;
    // @ts-expect-error `comments` is there only when derived
    void page.data[0]!.comments;
  }
  const post = await client.api.v1.posts.get('xYz12345');
  // @ts-expect-error a hidden column is never in a record
  if (post.data) void post.data.author_id;
  // @ts-expect-error an obfuscated id is a string
  await client.api.v1.posts.get(1);
  // @ts-expect-error a hidden column cannot be asked for
  await client.api.v1.posts.list({ fields: ['author_id'] });
  // @ts-expect-error `title` is not filterable
  await client.api.v1.posts.list({ filter: { title: { eq: 'x' } } });
  // @ts-expect-error a boolean column has no order operators
  await client.api.v1.posts.list({ filter: { pinned: { gt: true } } });
  // @ts-expect-error the value has the column's type
  await client.api.v1.posts.list({ filter: { status: { eq: 1 } } });
  // @ts-expect-error an obfuscated id compares by equality only
  await client.api.v1.comments.list({ filter: { post_id: { gt: 'abc' } } });
  // @ts-expect-error `body` is not sortable
  await client.api.v1.posts.list({ sort: ['-body'] });
  // @ts-expect-error comments may derive `post` only
  await client.api.v1.comments.list({ derive: ['author'] });
  // @ts-expect-error a relation that does not exist
  await client.api.v1.posts.get('xYz12345', { derive: ['tags'] });
  // @ts-expect-error the post validator needs a title
  await client.api.v1.posts.create({ body: 'no title' });
  // @ts-expect-error no mass assignment: author_id is not an input
  await client.api.v1.posts.create({ title: 'T', body: 'B', author_id: 1 });
  // @ts-expect-error every item of a bulk create is checked
  await client.api.v1.posts.create([{ title: 'T', body: 'B' }, { title: 'no body' }]);
  // @ts-expect-error comments declare no PUT validator, so there is no replace
  await client.api.v1.comments.replace('c1', { body: 'x', author_name: 'y' });
  // @ts-expect-error comments are published in v1 only
  await client.api.v2.comments.list();
  // @ts-expect-error no version v3 is published
  await client.api.v3.posts.list();

  // Tenant-scoped resources (contract section 17).
  // @ts-expect-error posts are not tenant-scoped: no mark
  const posts: TenantScoped = client.api.v1.posts;
  void posts;
  // @ts-expect-error projects are scoped by organization_id, not team_id
  const projects: TenantScoped<'team_id'> = client.api.v1.projects;
  void projects;
  // @ts-expect-error a resource that is not tenant-scoped has no tenant column
  const column: TenantOf<typeof client.api.v1.posts> = 'organization_id';
  void column;
  // @ts-expect-error the tenant column is an organization's (integer) id
  await client.api.v1.projects.create({ name: 'Apollo', organization_id: 'acme' });
  // @ts-expect-error nor in an update
  await client.api.v1.projects.update('p1', { organization_id: '7' });
  // @ts-expect-error giving the tenant column does not make the validator's name optional
  await client.api.v1.projects.create({ organization_id: 7 });
  // @ts-expect-error a resource that is not tenant-scoped takes no organization_id
  await client.api.v1.posts.create({ title: 'T', body: 'B', organization_id: 7 });
  const tenant = createClient<typeof tenantConfig>({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error nested children's tenant column has the same type
  await tenant.api.v1.projects.create({
    name: 'Apollo',
    tasks: [{ title: 'Launch', organization_id: 'acme' }],
  });

  // @ts-expect-error comments are not declared live: no live()
  client.api.v1.comments.live();
  // @ts-expect-error a live filter takes only filterable columns (title is not one)
  client.api.v1.posts.live({ filter: { title: { eq: 'x' } } });
  // @ts-expect-error live fields name the resource's fields
  client.api.v1.posts.live({ fields: ['password'] });
  // @ts-expect-error live takes no derive (the list's filter and fields only)
  client.api.v1.posts.live({ derive: ['comments'] });
  for await (const change of client.api.v1.posts.live({ fields: ['title'] })) {
    // @ts-expect-error a deleted event carries no record
    if (change.type === 'deleted') void change.data.record;
    // @ts-expect-error `fields` left `body` out of the live record
    if (change.type === 'created') void change.data.record.body;
  }

  const other = createClient<typeof pluginConfig>({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error the magic link plugin was left out of this configuration
  await other.auth.magicLink.send({ email: 'ada@example.com' });
  // @ts-expect-error the plugin's endpoint needs its body
  await other.auth.notes.pin({ id: 'n1' });

  const bare = createClient<typeof noPluginsConfig>({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error without plugins the built-ins' methods are typed: login's email is a string
  await bare.auth.login({ email: 42, password: 'secret secret' });
  // @ts-expect-error no built-in declares this endpoint
  await bare.auth.notes.get();
  const lean = createClient<typeof withoutMagicLinkConfig>({ baseUrl: 'http://localhost:3000' });
  // @ts-expect-error defaultPlugins({ magicLink: false }) leaves the magic link out
  await lean.auth.magicLink.verify({ token: 'abc' });
}
