// citadel/client against a real server with the demo's organizations plugin: members of an
// organization create and list its tenant-scoped projects through the typed client and see only
// their organization's rows (contract section 17), on the run's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type CitadelClient } from '../../src/client/index.ts';
import { startListeningTestApp } from '../support/browser.ts';
import { TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { linkIn } from '../support/mail.ts';
import { blogApi } from '../../examples/blog/api.ts';
import { blogMigrations } from '../../examples/blog/migrations.ts';
import demoConfig, { blogPlugins } from '../../examples/blog/citadel.config.ts';
import { cookieFetch } from './support.ts';

type Client = CitadelClient<typeof demoConfig>;

let t: TestApp;
let base: string;

beforeAll(async () => {
  ({ t, base } = await startListeningTestApp({
    api: blogApi,
    migrations: blogMigrations,
    plugins: blogPlugins,
  }));
});
afterAll(async () => t?.close());

/** A signed-in client with a cookie jar of its own, for a new user with a proved address. */
async function member(name: string): Promise<{ client: Client; email: string }> {
  const user = await t.createUser({ username: `${name}${process.pid}`, emailVerified: true });
  const client = createClient<typeof demoConfig>({ baseUrl: base, fetch: cookieFetch().fetch });
  const login = await client.auth.login({ email: user.email, password: TEST_PASSWORD });
  expect(login.error).toBeNull();
  return { client, email: user.email };
}

/** Create an organization as `client` (it becomes its active one); its id. */
async function organization(client: Client, name: string): Promise<number> {
  const created = await client.auth.organizations.create({ name });
  expect(created.error).toBeNull();
  return created.data!.data.organization.id;
}

describe('client.api on a tenant-scoped resource', () => {
  it('a member creates and lists the projects of their active organization, and sees no other', async () => {
    const alice = await member('alice');
    const bob = await member('bob');
    const carol = await member('carol');
    const acme = await organization(alice.client, 'Acme');
    const bobcorp = await organization(bob.client, 'Bobcorp');

    // In no organization yet: the tenant-scoped resource answers 403.
    expect((await carol.client.api.v1.projects.list()).error).toMatchObject({ status: 403 });

    // Carol joins Acme as a member through the emailed invitation.
    const before = t.mail.to(carol.email).length;
    const invited = await alice.client.auth.organizations.invitations.create({
      id: String(acme),
      email: carol.email,
      role: 'member',
    });
    expect(invited.error).toBeNull();
    const mail = await t.mail.waitFor(carol.email, { count: before + 1 });
    const token = decodeURIComponent(linkIn(mail, `${base}/organizations/invitations/`).split('/').pop()!);
    expect((await carol.client.auth.organizations.invitations.accept({ token })).error).toBeNull();

    // The session acts in the organization it joined (an empty list now); switching is explicit too.
    expect((await carol.client.api.v1.projects.list()).data).toEqual([]);
    const switched = await carol.client.auth.organizations.active({ organization_id: acme });
    expect(switched.data?.data.organization).toMatchObject({ id: acme, role: 'member' });

    // The body leaves organization_id out; the server sets it to the active organization.
    const apollo = await carol.client.api.v1.projects.create({ name: 'Apollo', description: 'moon' });
    expect(apollo.error).toBeNull();
    expect(apollo.data).toMatchObject({ name: 'Apollo', organization_id: acme });
    // The active organization's own id may be given; another is a 422 naming the column.
    const same = await carol.client.api.v1.projects.create({ name: 'Gemini', organization_id: acme });
    expect(same.data?.organization_id).toBe(acme);
    const elsewhere = await carol.client.api.v1.projects.create({ name: 'Moved', organization_id: bobcorp });
    expect(elsewhere.error).toMatchObject({ status: 422 });
    expect(elsewhere.error?.errors?.organization_id).toBeTruthy();
    const bulk = await alice.client.api.v1.projects.create([{ name: 'Mercury' }, { name: 'Vostok' }]);
    expect(bulk.data?.map((project) => project.organization_id)).toEqual([acme, acme]);
    const borealis = await bob.client.api.v1.projects.create({ name: 'Borealis' });
    expect(borealis.data?.organization_id).toBe(bobcorp);

    // Lists, counts and searches see the active organization's rows alone.
    const mine = await carol.client.api.v1.projects.list({ sort: ['name'], count: 'exact' });
    expect(mine.data?.map((project) => project.name)).toEqual(['Apollo', 'Gemini', 'Mercury', 'Vostok']);
    expect(mine.pagination?.total).toBe(4);
    expect(mine.data?.every((project) => project.organization_id === acme)).toBe(true);
    const theirs = await bob.client.api.v1.projects.list();
    expect(theirs.data?.map((project) => project.name)).toEqual(['Borealis']);
    expect((await bob.client.api.v1.projects.list({ search: 'apollo' })).data).toEqual([]);

    // A personal access token made for Acme acts in Acme, with its abilities and the role's.
    await alice.client.auth.sudo.verify({ factor: 'password', proof: TEST_PASSWORD });
    const made = await alice.client.auth.tokens.create({
      name: 'acme-reader',
      abilities: ['projects:read'],
      organization_id: acme,
    });
    expect(made.error).toBeNull();
    const reader = createClient<typeof demoConfig>({ baseUrl: base, token: made.data!.token });
    expect((await reader.api.v1.projects.list({ sort: ['name'] })).data?.map((p) => p.name)).toEqual([
      'Apollo',
      'Gemini',
      'Mercury',
      'Vostok',
    ]);
    expect((await reader.api.v1.projects.create({ name: 'Not allowed' })).error).toMatchObject({
      status: 403,
    });

    // Another organization's project is not there to read or change.
    const bobsId = borealis.data!.id;
    expect((await carol.client.api.v1.projects.get(bobsId)).error).toMatchObject({ status: 404 });
    expect((await carol.client.api.v1.projects.update(bobsId, { name: 'Taken' })).error).toMatchObject({
      status: 404,
    });
    expect((await bob.client.api.v1.projects.get(bobsId)).data?.name).toBe('Borealis');

    // The role decides each verb: a member updates, only an owner or admin deletes.
    const renamed = await carol.client.api.v1.projects.update(apollo.data!.id, { name: 'Apollo 11' });
    expect(renamed.data).toMatchObject({ name: 'Apollo 11', organization_id: acme });
    expect((await carol.client.api.v1.projects.delete(apollo.data!.id)).error).toMatchObject({ status: 403 });
    expect((await alice.client.api.v1.projects.delete(apollo.data!.id)).data).toEqual({
      id: apollo.data!.id,
    });
  });
});
