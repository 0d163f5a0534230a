import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../../support/client.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { createOrganization, startTenantApp } from './fixture.ts';

interface Actor {
  client: TestClient;
  org: number;
}

type Action =
  | { kind: 'list'; actor: number; search: string | null; sort: string; limit: number; pages: number }
  | { kind: 'get' | 'delete'; actor: number; target: number; derive: boolean }
  | { kind: 'update'; actor: number; target: number; name: string; sneak: number | null }
  | { kind: 'create'; actor: number; name: string; sneak: number | null; task: boolean };

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];

describe('tenant isolation, property-based (fast-check)', () => {
  let t: ApiApp;
  const actors: Actor[] = [];
  /** Every project id ever seen, with the organization it was created in. */
  const known: { id: string; org: number }[] = [];

  beforeAll(async () => {
    t = await startTenantApp();
    for (const name of ['Org one', 'Org two', 'Org three']) {
      const client = await t.signIn(await t.createUser());
      const org = await createOrganization(client, name);
      actors.push({ client, org });
      for (const project of NAMES.slice(0, 3)) {
        const created = await client.post('/api/v1/projects', { name: `${project} ${name}` });
        expect(created.status).toBe(201);
        known.push({ id: created.body.data.id, org });
        const task = await client.post('/api/v1/tasks', {
          project_id: created.body.data.id,
          title: `task of ${project}`,
        });
        expect(task.status, task.text).toBe(201);
      }
    }
  });
  afterAll(async () => t?.close());

  /** Every stored row of every organization, by organization: what no other member may change. */
  const snapshot = async () => {
    const rows = (await t.services.db
      .selectFrom('projects' as never)
      .selectAll()
      .orderBy('id' as never)
      .execute()) as { organization_id: number }[];
    const by = new Map<number, string>();
    for (const actor of actors)
      by.set(actor.org, JSON.stringify(rows.filter((row) => row.organization_id === actor.org)));
    return by;
  };

  const action: fc.Arbitrary<Action> = fc.oneof(
    fc.record({
      kind: fc.constant('list' as const),
      actor: fc.nat(2),
      search: fc.option(fc.constantFrom(...NAMES, 'Org', 'task'), { nil: null }),
      sort: fc.constantFrom('id', '-id', 'name', '-created_at'),
      limit: fc.integer({ min: 1, max: 4 }),
      pages: fc.integer({ min: 1, max: 3 }),
    }),
    fc.record({
      kind: fc.constantFrom('get' as const, 'delete' as const),
      actor: fc.nat(2),
      target: fc.nat(200),
      derive: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('update' as const),
      actor: fc.nat(2),
      target: fc.nat(200),
      name: fc.constantFrom(...NAMES),
      sneak: fc.option(fc.nat(2), { nil: null }),
    }),
    fc.record({
      kind: fc.constant('create' as const),
      actor: fc.nat(2),
      name: fc.constantFrom(...NAMES),
      sneak: fc.option(fc.nat(2), { nil: null }),
      task: fc.boolean(),
    }),
  );

  const ownRows = (rows: { organization_id: number }[], org: number, what: string) => {
    for (const row of rows) expect(row.organization_id, what).toBe(org);
  };

  async function run(step: Action): Promise<void> {
    const actor = actors[step.actor]!;
    const { client, org } = actor;
    const where = JSON.stringify(step);
    if (step.kind === 'list') {
      let url = `/api/v1/projects?limit=${step.limit}&sort=${step.sort}&derive=tasks&count=exact`;
      if (step.search) url += `&search=${encodeURIComponent(step.search)}`;
      let cursor: string | null = null;
      for (let page = 0; page < step.pages; page++) {
        const response = await client.get(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url);
        expect(response.status, where).toBe(200);
        const rows = response.body.data as {
          organization_id: number;
          tasks: { organization_id: number }[];
        }[];
        ownRows(rows, org, where);
        for (const row of rows) ownRows(row.tasks, org, where);
        const own = known.filter((k) => k.org === org).length;
        expect(response.body.pagination.total, where).toBeLessThanOrEqual(own);
        cursor = response.body.pagination.nextCursor;
        if (!cursor) break;
      }
      const tasks = await client.get('/api/v1/tasks?derive=project&limit=100');
      ownRows(tasks.body.data, org, where);
      for (const task of tasks.body.data as { project: { organization_id: number } | null }[])
        if (task.project) expect(task.project.organization_id, where).toBe(org);
      return;
    }
    if (step.kind === 'create') {
      const body: Record<string, unknown> = { name: step.name };
      if (step.sneak !== null) body.organization_id = actors[step.sneak]!.org;
      const response = await client.post('/api/v1/projects', body);
      if (step.sneak !== null && actors[step.sneak]!.org !== org) {
        expect(response.status, where).toBe(422);
        expect(response.body.invalid_params[0].name).toBe('organization_id');
        return;
      }
      expect(response.status, where).toBe(201);
      expect(response.body.data.organization_id, where).toBe(org);
      known.push({ id: response.body.data.id, org });
      if (step.task) {
        const task = await client.post('/api/v1/tasks', {
          project_id: response.body.data.id,
          title: step.name,
        });
        expect(task.status, where).toBe(201);
        expect(task.body.data.organization_id, where).toBe(org);
      }
      return;
    }
    const target = known[step.target % known.length]!;
    const mine = target.org === org;
    const path = `/api/v1/projects/${target.id}`;
    if (step.kind === 'get') {
      const response = await client.get(step.derive ? `${path}?derive=tasks` : path);
      if (!mine) expect(response.status, where).toBe(404);
      else if (response.status === 200) {
        expect(response.body.data.organization_id, where).toBe(org);
        ownRows(response.body.data.tasks ?? [], org, where);
      } else expect(response.status, where).toBe(404); // deleted earlier
      return;
    }
    if (step.kind === 'update') {
      const body: Record<string, unknown> = { name: step.name };
      if (step.sneak !== null) body.organization_id = actors[step.sneak]!.org;
      const response = await client.patch(path, body);
      const sneaking = step.sneak !== null && actors[step.sneak]!.org !== org;
      if (sneaking) expect([404, 422], where).toContain(response.status);
      else if (!mine) expect(response.status, where).toBe(404);
      else if (response.status === 200) expect(response.body.data.organization_id, where).toBe(org);
      else expect(response.status, where).toBe(404);
      return;
    }
    const response = await client.delete(path);
    if (!mine) expect(response.status, where).toBe(404);
    else expect([200, 404], where).toContain(response.status);
  }

  it(
    'random requests by members of different organizations never see or change another organization’s rows',
    { timeout: 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (steps) => {
          for (const step of steps) {
            const before = await snapshot();
            await run(step);
            const after = await snapshot();
            // Only the actor's organization may have changed.
            for (const other of actors)
              if (other !== actors[step.actor])
                expect(after.get(other.org), JSON.stringify(step)).toBe(before.get(other.org));
          }
        }),
        { numRuns: 25 },
      );
    },
  );
});
