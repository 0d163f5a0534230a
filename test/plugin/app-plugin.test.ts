import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import type { Generated } from 'kysely';
import {
  defaultPlugins,
  defineEndpoint,
  definePlugin,
  Envelope,
  ValidationError,
  type CitadelMigration,
} from '../../src/index.ts';
import { html } from '../../src/html.ts';
import { idColumn, TIMESTAMP, userIdColumn } from '../../src/migrations.ts';
import { resolvePlugins } from '../../src/app/assembly.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';

// An application's own table, typed for Citadel's Kysely instance by declaration merging.
interface NotesTable {
  id: Generated<number>;
  user_id: number;
  body: string;
  created_at: string;
}
declare module '../../src/db/schema.ts' {
  interface Database {
    notes: NotesTable;
  }
}

const notesMigration: CitadelMigration = {
  name: '1000_notes',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('notes'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('body', 'varchar(200)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};

const signIns: number[] = [];

/** A whole capability from outside Citadel's files: table, routes, a sign-in action, a listener. */
const notesPlugin = definePlugin({
  id: 'notes',
  migrations: [notesMigration],
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/notes',
      action: 'notes.list',
      auth: 'session',
      responses: { 200: Envelope({ data: Type.Object({ notes: Type.Array(Type.String()) }) }) },
      async handler({ caller, services }) {
        const notes = await services.db
          .selectFrom('notes')
          .select(['body'])
          .where('user_id', '=', caller.user.id)
          .orderBy('id')
          .execute();
        return { status: 'success', data: { notes: notes.map((n) => n.body) } };
      },
    }),
  ],
  actions: [
    {
      id: 'notes_welcome',
      label: 'Write your first note',
      renderFields: () => html`<input name="note" />`,
      async handle(_ctx, body) {
        if (typeof body.note !== 'string' || body.note === '')
          throw new ValidationError({ note: 'Write something.' });
        return body.note !== 'wrong';
      },
      async complete(ctx) {
        await ctx.services.db
          .insertInto('notes')
          .values({
            user_id: ctx.user.id,
            body: 'welcome',
            created_at: ctx.services.clock.now().toISOString(),
          })
          .execute();
      },
    },
  ],
  hooks: {
    signedIn: ({ user }) => void signIns.push(user.id),
  },
});

describe('an application plugin (route, action, table) without editing Citadel', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), notesPlugin], loginActions: ['notes_welcome'] });
  });
  afterAll(async () => t?.close());

  it('its migration ran after the built-in ones and its route is served', async () => {
    const tables = (await t.services.db.introspection.getTables()).map((table) => table.name);
    expect(tables).toContain('notes');
    expect((await t.client().get('/notes')).status).toBe(401);
  });

  it('its action runs in the sign-in pipeline; its listener hears the sign-in; its route sees the data', async () => {
    const user = await t.createUser();
    const client = t.client();
    const login = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(login.body.action).toBe('login.action_required');
    expect((await client.get('/action/show')).body.data.action).toBe('notes_welcome');
    expect((await client.post('/action/handle', {})).status).toBe(422);
    expect((await client.post('/action/handle', { note: 'wrong' })).status).toBe(404);
    expect(signIns).not.toContain(user.id);

    const done = await client.post('/action/handle', { note: 'hello' });
    expect(done.status).toBe(200);
    expect(signIns).toContain(user.id);
    const notes = await client.get('/notes');
    expect(notes.status).toBe(200);
    expect(notes.body.data).toEqual({ notes: ['welcome'] });
  });

  it('its action page renders the fields it gave, escaped by the html template', async () => {
    const user = await t.createUser();
    const browser = t.client();
    await browser.post('/login', { email: user.email, password: TEST_PASSWORD }, 'form');
    const page = await browser.get('/action/show', 'form');
    expect(page.text).toContain('Write your first note');
    expect(page.text).toContain('<input name="note" />');
  });

  it('a plugin id used twice, or a table claimed by two plugins, is refused at start-up', () => {
    expect(() => resolvePlugins({ plugins: [notesPlugin, notesPlugin] })).toThrow(
      'two plugins have the id "notes"',
    );
    const other = { id: 'other-notes', tables: ['notes'] };
    expect(() => resolvePlugins({ plugins: [{ ...notesPlugin, tables: ['notes'] }, other] })).toThrow(
      /^plugins "notes" and "other-notes" both create the table "notes"$/,
    );
  });

  it('a plugin that still carries a slot of an earlier release (routes, listeners under events, securityEvents, signInFacts, bearer) is refused at start-up', () => {
    const legacy = { id: 'legacy', routes: () => undefined } as unknown as typeof notesPlugin;
    expect(() => resolvePlugins({ plugins: [legacy] })).toThrow(ConfigError);
    expect(() => resolvePlugins({ plugins: [legacy] })).toThrow(
      /^plugin "legacy" has a `routes` slot, which Citadel no longer reads: .*endpoints/,
    );
    // Listeners under `events` (its meaning before it listed event types) belong in `hooks`.
    const listening = {
      id: 'listening',
      events: { signedIn: () => undefined },
    } as unknown as typeof notesPlugin;
    expect(() => resolvePlugins({ plugins: [listening] })).toThrow(
      /^plugin "listening" has an `events` object: its listeners \(signedIn\) belong in `hooks`/,
    );
    const renamed = { id: 'renamed', securityEvents: [] } as unknown as typeof notesPlugin;
    expect(() => resolvePlugins({ plugins: [renamed] })).toThrow(/`securityEvents` slot.*`events`/);
    // Sign-in facts and bearer verifiers are hooks.
    const facts = { id: 'facts', signInFacts: {} } as unknown as typeof notesPlugin;
    expect(() => resolvePlugins({ plugins: [facts] })).toThrow(
      /`signInFacts` slot.*hooks: \{ signInFacts \}/,
    );
    const bearer = { id: 'bearer', bearer: () => undefined } as unknown as typeof notesPlugin;
    expect(() => resolvePlugins({ plugins: [bearer] })).toThrow(/`bearer` slot.*hooks: \{ bearer \}/);
  });
});
