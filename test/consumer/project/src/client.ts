// The typed client as an application uses it (strict NodeNext, from the packed tarball): typed from
// the configuration's own plugins and resources, against a server started from the same config.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strict as assert } from 'node:assert';
import { Type } from '@sinclair/typebox';
import {
  createApi,
  createServer,
  defaultPlugins,
  defineConfig,
  defineResource,
  type CitadelMigration,
} from 'citadel';
import { createClient, type ClientError } from 'citadel/client';
import { idColumn, TIMESTAMP } from 'citadel/migrations';

const todosTable: CitadelMigration = {
  name: '2026_11_27_000000_todos',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('todos'), dialect)
      .addColumn('title', 'varchar(200)', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('secret', 'varchar(50)')
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};

const todos = defineResource({
  name: 'todos',
  columns: {
    id: { type: 'integer', readOnly: true },
    title: { type: 'string' },
    done: { type: 'boolean' },
    secret: { type: 'string', nullable: true, hidden: true },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },
  obfuscatedFields: ['id'],
  filterable: ['done'],
  formClass: {
    post: Type.Object({ title: Type.String({ minLength: 1 }), done: Type.Optional(Type.Boolean()) }),
    patch: Type.Object({ title: Type.Optional(Type.String()), done: Type.Optional(Type.Boolean()) }),
  },
});

export async function clientProgram(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'citadel-consumer-client-'));
  const config = defineConfig({
    env: {},
    databaseUrl: `sqlite:${join(dataDir, 'client.sqlite')}`,
    sessionSecret: 'consumer-client-secret-consumer-client-secret',
    dataDir,
    logLevel: 'silent',
    plugins: defaultPlugins({ magicLink: false }),
    migrations: [todosTable],
    api: createApi({ apiName: 'Todos', resources: [todos] }).publish({ version: 'v1' }),
  });
  const server = await createServer(config);
  const baseUrl = await server.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    // Node has no cookie jar: sign up through one client, then work with a personal access token.
    let cookie = '';
    const session = createClient<typeof config>({
      baseUrl,
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        if (cookie) headers.set('cookie', cookie);
        const response = await fetch(input, { ...init, headers });
        const set = response.headers.getSetCookie().find((line) => line.startsWith('citadel_session='));
        if (set) cookie = set.split(';')[0]!;
        return response;
      },
    });
    const password = 'correct horse battery';
    const registered = await session.auth.register({
      username: 'grace',
      email: 'grace@example.com',
      password,
      password_confirm: password,
    });
    assert.equal(registered.data?.user?.username, 'grace');
    const refused = await session.auth.tokens.create({ name: 'script', abilities: ['*'] });
    const error: ClientError | null = refused.error;
    assert.equal(error?.action, 'sudo.required');
    await session.auth.sudo.verify({ factor: 'password', proof: password });
    const created = await session.auth.tokens.create({ name: 'script', abilities: ['*'] });
    assert.ok(created.data, JSON.stringify(created.error));

    const client = createClient<typeof config>({ baseUrl, token: created.data.token });
    const me = await client.auth.me();
    assert.equal(me.data?.user.email, 'grace@example.com');
    const todo = await client.api.v1.todos.create({ title: 'Write the client' });
    assert.ok(todo.data, JSON.stringify(todo.error));
    const id: string = todo.data.id;
    const done = await client.api.v1.todos.update(id, { done: true });
    assert.equal(done.data?.done, true);
    const list = await client.api.v1.todos.list({ filter: { done: { eq: true } }, fields: ['title'] });
    assert.deepEqual(list.data, [{ id, title: 'Write the client' }]);
    assert.equal(list.pagination?.nextCursor, null);
    // @ts-expect-error the hidden column is not part of the record type
    assert.equal(todo.data.secret, undefined);
    console.log(
      'consumer program: citadel/client typed from the configuration (auth, sudo, tokens, resources) passed',
    );
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
