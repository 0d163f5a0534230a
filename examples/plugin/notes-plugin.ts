/**
 * A plugin as `definePlugin` takes it: its table (a migration and the table's type), an
 * endpoint, a pipeline action, a page replacement, a sign-in hook and a sign-in fact. It has no
 * options, so it is a constant; a plugin with options is a factory around `definePlugin`, as the
 * built-ins are (`magicLink({ ttlSeconds })`; see docs/architecture.md). Referenced
 * by docs/architecture.md; type-checked with the rest of the repository (`npm run typecheck`).
 * In an application the import is `citadel/plugin`, and `citadel` for the built-in page it wraps.
 */
import type { Generated } from 'kysely';
import { Type } from '@sinclair/typebox';
import {
  defineEndpoint,
  definePlugin,
  Envelope,
  html,
  idColumn,
  signInFactsFor,
  TIMESTAMP,
  userIdColumn,
  ValidationError,
  type CitadelMigration,
} from '../../src/plugin-api.ts';
// The built-in pages belong to the built-in plugins, not to the plugin API: a plugin that wraps
// one (the login page, below) needs the built-ins' package too.
import { builtInPages } from '../../src/index.ts';

// The plugin's table, added to Citadel's `Database` type by declaration merging (in an application:
// `declare module 'citadel/plugin'`).
interface NotesTable {
  id: Generated<number>;
  user_id: number;
  body: string;
  created_at: string;
}
declare module '../../src/plugin-api.ts' {
  interface PluginTables {
    plugin_notes: NotesTable;
  }
}

const createNotes: CitadelMigration = {
  // Runs in name order with Citadel's migrations (theirs start with `0`).
  name: '20261126000000_create_plugin_notes',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('plugin_notes'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('body', 'varchar(500)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('plugin_notes').execute();
  },
};

export const notesPlugin = definePlugin({
  id: 'notes',
  migrations: [createNotes],

  // Served at the auth routes' prefix, behind the global hooks: the session is loaded, the caller
  // resolved (`auth: 'session'`: 401 without one), validated, serialized and documented from its
  // schemas.
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/notes',
      action: 'notes.list',
      auth: 'session',
      summary: "The caller's notes, oldest first",
      responses: {
        200: Envelope({
          data: Type.Object({
            notes: Type.Array(Type.Object({ body: Type.String(), created_at: Type.String() })),
          }),
        }),
      },
      async handler({ caller, services }) {
        const notes = await services.db
          .selectFrom('plugin_notes')
          .select(['body', 'created_at'])
          .where('user_id', '=', caller.user.id)
          .orderBy('id')
          .execute();
        return { status: 'success', data: { notes } };
      },
    }),
  ],

  // A sign-in step, enabled by listing its id: AUTH_LOGIN_ACTIONS=notes_first_note.
  actions: [
    {
      id: 'notes_first_note',
      label: 'Write your first note',
      // Only for users without a note (asked when the step would run).
      isPendingFor: async (ctx) => {
        const note = await ctx.services.db
          .selectFrom('plugin_notes')
          .select('id')
          .where('user_id', '=', ctx.user.id)
          .executeTakeFirst();
        return note === undefined;
      },
      renderFields: () => html`<input name="note" maxlength="500" />`,
      async handle(ctx, body) {
        if (typeof body.note !== 'string' || body.note.trim() === '')
          throw new ValidationError({ note: 'Write something.' });
        await ctx.services.db
          .insertInto('plugin_notes')
          .values({
            user_id: ctx.user.id,
            body: body.note,
            created_at: ctx.services.clock.now().toISOString(),
          })
          .execute();
        return true;
      },
    },
  ],

  // Replaces a built-in page by name (browsers only; JSON clients are unaffected).
  pages: {
    login: (ctx) =>
      html`<p class="notice">Notes are kept for signed-in users.</p>
        ${builtInPages.login(ctx)}`,
  },

  hooks: {
    signedIn: async ({ request, user }) => {
      const facts = await signInFactsFor(request, user);
      request.log.info({ userId: user.id, hasNotes: facts['notes.has_notes'] }, 'signed in');
    },
    // A yes/no fact read in the same statement that looks the user up at sign-in.
    signInFacts: {
      'notes.has_notes': (eb, userId) =>
        eb.exists(eb.selectFrom('plugin_notes').select('id').where('user_id', '=', userId)),
    },
  },
});

// createServer({ plugins: [...defaultPlugins(), notesPlugin], loginActions: ['notes_first_note'] })
