// A program an application developer would write on Citadel, compiled by tsc and run with plain
// node: its own table (migration), its own resource on it, a custom sign-in action rendering html,
// a plugin factory with options (written with citadel/plugin) adding an endpoint and a sudo
// factor, the built-ins with one left out and one with options, a replaced sign-in page; then
// register, sign in through the action, confirm with the plugin's factor and write through the API.
import { timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strict as assert } from 'node:assert';
import {
  createApi,
  createServer,
  defaultPlugins,
  defineConfig,
  defineResource,
  type CitadelMigration,
  type PageReplacements,
} from 'citadel';
import {
  defineEndpoint,
  definePlugin,
  Envelope,
  ValidationError,
  type Factor,
  type PipelineAction,
} from 'citadel/plugin';
import { Type } from '@sinclair/typebox';
import { html, layout } from 'citadel/html';
import { idColumn, TIMESTAMP, userIdColumn } from 'citadel/migrations';
import * as everyExport from './every-export.js';
import { embedProgram } from './embed.js';
import { clientProgram } from './client.js';

for (const name of everyExport.VALUE_EXPORTS) {
  assert.notEqual(everyExport[name], undefined, `export ${name} is undefined at run time`);
}

const notesTable: CitadelMigration = {
  name: '2026_11_24_000000_notes',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('notes'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('body', 'varchar(500)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};

const notes = defineResource({
  name: 'notes',
  version: 'v1',
  columns: {
    id: { type: 'integer', readOnly: true },
    user_id: { type: 'integer', readOnly: true, hidden: true },
    body: { type: 'string' },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },
  requiredAuth: ['get', 'post', 'put', 'patch', 'delete'],
  // A validator per write verb: the verbs it names are the ones served.
  formClass: { post: Type.Object({ body: Type.String({ minLength: 1, maxLength: 500 }) }) },
  hooks: {
    beforeQuery: (query, ctx) => query.where('notes.user_id', '=', ctx.user?.id ?? -1),
    beforeSave: (data, ctx) => (ctx.verb === 'post' ? { ...data, user_id: ctx.user!.id } : data),
  },
});

const houseRules: PipelineAction = {
  id: 'house_rules',
  label: 'Accept the house rules',
  async handle(_ctx, body) {
    if (body.agree !== true) throw new ValidationError({ agree: 'Please agree to the house rules.' });
    return true;
  },
  renderFields: () => html`<label><input type="checkbox" name="agree" value="1" /> I agree</label>`,
};

// A sudo proof of the application's own: the office door code (the same for everyone here).
const DOOR_CODE = Buffer.from('4711-open');
const doorCode: Factor = {
  id: 'door_code',
  label: 'Office door code',
  scopes: ['sudo'],
  proofInput: { label: 'Door code', autocomplete: 'off' },
  async isAvailable() {
    return true;
  },
  async challenge() {
    return {};
  },
  async verify(_request, _user, proof) {
    const given = Buffer.from(typeof proof === 'string' ? proof : '');
    return given.length === DOOR_CODE.length && timingSafeEqual(given, DOOR_CODE);
  },
};

// The application's plugin is a factory with typed options, like the built-ins.
interface HelloOptions {
  greeting: string;
}
const hello = (options: Partial<HelloOptions> = {}) => {
  const { greeting } = { greeting: 'world', ...options } satisfies HelloOptions;
  return definePlugin({
    id: 'hello',
    options: { greeting },
    endpoints: [
      defineEndpoint({
        method: 'GET',
        path: '/hello',
        action: 'hello',
        auth: 'anonymous',
        summary: 'Say hello',
        responses: { 200: Envelope({ data: Type.Object({ hello: Type.String() }) }) },
        handler: async () => ({ status: 'success' as const, data: { hello: greeting } }),
      }),
    ],
    factors: [doorCode],
  });
};

// The application's own sign-in page (browsers only; JSON clients get the same envelopes).
const pages: PageReplacements = {
  login: (ctx) =>
    layout(
      ctx,
      'Sign in to your notes',
      html`<form method="post" action="/login">
        <input type="hidden" name="_csrf" value="${ctx.csrf}" />
        <input name="email" /><input name="password" type="password" /><button>Sign in</button>
        <p id="providers">${ctx.props.providers.length} providers</p>
      </form>`,
    ),
};

const dataDir = mkdtempSync(join(tmpdir(), 'citadel-consumer-data-'));
const config = defineConfig({
  env: {},
  databaseUrl: `sqlite:${join(dataDir, 'app.sqlite')}`,
  sessionSecret: 'consumer-test-secret-consumer-test-secret',
  dataDir,
  logLevel: 'silent',
  loginActions: ['house_rules'],
  actions: [houseRules],
  // Every built-in but the magic link, sudo for two minutes, then the application's own.
  plugins: [...defaultPlugins({ magicLink: false, sudo: { ttlSeconds: 120 } }), hello({ greeting: 'notes' })],
  pages,
  migrations: [notesTable],
  api: createApi({ apiName: 'Consumer API', apiBaseUrl: '/api', resources: [notes] }).publish({
    version: 'v1',
  }),
});

const server = await createServer(config);
const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
const cookies = new Map<string, string>();

async function call(method: string, path: string, body?: unknown, accept = 'application/json') {
  const response = await fetch(`${address}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      accept,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [name, value] = pair!.split('=');
    cookies.set(name!, value ?? '');
  }
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  // JSON answers are checked by the assertions below, not by types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const parsed = (json && text ? JSON.parse(text) : null) as Record<string, any>;
  return { status: response.status, text, body: parsed };
}

try {
  const hi = await call('GET', '/hello');
  assert.deepEqual([hi.status, hi.body.data], [200, { hello: 'notes' }]);
  // The magic link was left out: its routes are gone, and so are its OpenAPI entries.
  assert.equal((await call('GET', '/magic-link')).status, 404);
  const documented = Object.keys((await call('GET', '/docs')).body.paths);
  assert.ok(documented.includes('/login') && !documented.includes('/magic-link'), documented.join(' '));
  const loginPage = await call('GET', '/login', undefined, 'text/html');
  assert.equal(loginPage.status, 200);
  assert.match(loginPage.text, /<title>Sign in to your notes · Citadel<\/title>/);
  assert.match(loginPage.text, /<p id="providers">0 providers<\/p>/);
  assert.equal((await call('GET', '/login')).body.action, 'login.show');

  const account = {
    username: 'ada',
    email: 'ada@example.com',
    password: 'correct horse battery',
    password_confirm: 'correct horse battery',
  };
  const registered = await call('POST', '/register', account);
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  await call('POST', '/logout', {});
  cookies.clear();

  const login = await call('POST', '/login', { email: account.email, password: account.password });
  assert.equal(login.body.action, 'login.action_required', JSON.stringify(login.body));
  assert.equal((await call('GET', '/action/show')).body.data.action, 'house_rules');
  assert.equal((await call('POST', '/action/handle', { agree: false })).status, 422);
  const done = await call('POST', '/action/handle', { agree: true });
  assert.equal(done.body.action, 'action.success', JSON.stringify(done.body));
  assert.equal((await call('GET', '/me')).body.user.username, 'ada');

  // Sudo offers the plugin's factor after the password, and verifies it.
  assert.deepEqual((await call('GET', '/sudo')).body.data.factors, ['password', 'door_code']);
  assert.equal((await call('POST', '/sudo/verify', { factor: 'door_code', proof: '1234-nope' })).status, 422);
  const confirmed = await call('POST', '/sudo/verify', { factor: 'door_code', proof: '4711-open' });
  assert.equal(confirmed.body.action, 'sudo.verified', JSON.stringify(confirmed.body));
  // sudo({ ttlSeconds: 120 }), given through defaultPlugins(), is the grace period.
  const sudoSeconds = (Date.parse(confirmed.body.data.expires_at) - Date.now()) / 1000;
  assert.ok(sudoSeconds > 110 && sudoSeconds <= 120, `sudo lasts ${sudoSeconds} s`);

  const created = await call('POST', '/api/v1/notes', { body: 'Written through my own resource' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const listed = await call('GET', '/api/v1/notes');
  assert.equal(listed.body.data.length, 1);
  assert.equal(listed.body.data[0].body, 'Written through my own resource');
  assert.equal(listed.body.data[0].user_id, undefined, 'a hidden column must not be returned');

  console.log(
    `consumer program: plugin factory with options and its route, defaultPlugins({ magicLink: false, sudo: { ttlSeconds: 120 } }), replaced login page, registration, sign-in through "house_rules", sudo with the plugin's "door_code" factor, POST and GET /api/v1/notes all passed`,
  );
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await embedProgram();
await clientProgram();
