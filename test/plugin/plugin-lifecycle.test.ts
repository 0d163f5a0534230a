/**
 * The plugin slots around the core's shared data: `init` (once, after migrations) with `onClose`
 * (at shutdown, last registered first, before the database closes), `events` (the types a
 * plugin records: the writer refuses others, lists show those of the plugins present) and
 * `errorCodes`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { defaultPlugins, definePlugin, type CitadelMigration } from '../../src/index.ts';
import { recordSecurityEvent } from '../../src/auth/core/security-events.ts';
import { CORE_ERROR_CODES } from '../../src/auth/core/error-codes.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const journalMigration: CitadelMigration = {
  name: '1000_lifecycle_journal',
  async up(db) {
    await db.schema.createTable('lifecycle_journal').addColumn('entry', 'varchar(64)').execute();
  },
};

/** A plugin whose init and close write to its own table, and say so in `said`. */
function journaling(id: string, said: string[]) {
  return definePlugin({
    id,
    async init({ db, services, onClose }) {
      // Migrations ran: its table is there, and the services are the server's.
      await sql`insert into lifecycle_journal (entry) values (${`${id} init`})`.execute(db);
      expect(services.db).toBe(db);
      said.push(`${id} init`);
      onClose(async () => {
        // The database is still open when a plugin closes.
        await sql`insert into lifecycle_journal (entry) values (${`${id} close 1`})`.execute(db);
        said.push(`${id} close 1`);
      });
      onClose(() => void said.push(`${id} close 2`));
    },
  });
}

describe('plugin init and onClose', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  it('init runs once after migrations, in plugin order; onClose callbacks run at shutdown, in reverse', async () => {
    const said: string[] = [];
    const journal = definePlugin({ id: 'journal', migrations: [journalMigration] });
    const t = await startTestApp({
      plugins: [...defaultPlugins(), journal, journaling('first', said), journaling('second', said)],
    });
    expect(said).toEqual(['first init', 'second init']);
    await t.client().get('/healthz');
    expect(said).toEqual(['first init', 'second init']);
    const entries = await sql<{ entry: string }>`select entry from lifecycle_journal`.execute(t.services.db);
    await t.server.close();
    expect(said).toEqual([
      'first init',
      'second init',
      'second close 2',
      'second close 1',
      'first close 2',
      'first close 1',
    ]);
    expect(entries.rows.map((r) => r.entry)).toEqual(['first init', 'second init']);
    await t.database.drop();
    await t.mail.stop();
  });

  it('an init that throws stops start-up, and what earlier plugins started is closed', async () => {
    const said: string[] = [];
    const journal = definePlugin({ id: 'journal', migrations: [journalMigration] });
    const broken = definePlugin({
      id: 'broken',
      init() {
        throw new Error('broken plugin cannot start');
      },
    });
    // On another app's database and mail capture, so the failed start leaves nothing behind.
    const host = await startTestApp();
    apps.push(host);
    await expect(
      startTestApp({
        plugins: [...defaultPlugins(), journal, journaling('first', said), broken],
        sharedDatabase: host.database,
        sharedMail: host.mail,
      }),
    ).rejects.toThrow('broken plugin cannot start');
    expect(said).toEqual(['first init', 'first close 2', 'first close 1']);
  });
});

describe('security event types', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
  });

  it('lists show the types of the plugins present, with their labels', async () => {
    const noted = definePlugin({
      id: 'noted',
      events: [{ type: 'note_shared', label: 'Note shared' }],
    });
    const t = await startTestApp({ plugins: [...defaultPlugins({ admin: false }), noted] });
    apps.push(t);
    const user = await t.createUser();
    const client = await t.signIn(user);
    await recordSecurityEvent(t.services.db, t.clock, { userId: user.id, type: 'note_shared' as never });
    // A row of a plugin that is not present (left by an earlier configuration with the admin plugin).
    await t.services.db
      .insertInto('security_events')
      .values({
        user_id: user.id,
        type: 'account_disabled',
        ip: null,
        user_agent: null,
        detail: '{}',
        created_at: new Date(t.clock.now().getTime() + 1).toISOString(),
      })
      .execute();
    const listed = (await client.get('/account/events')).body.data;
    expect(listed.events.map((e: { type: string; label: string }) => [e.type, e.label])).toEqual([
      ['note_shared', 'Note shared'],
      ['sign_in', 'Signed in'],
    ]);
    expect(listed.pagination.total).toBe(2);
    const page = await client.get('/account/events', 'form');
    expect(page.text).toContain('Note shared');
    expect(page.text).not.toContain('account_disabled');
  });

  it('the writer refuses a type no plugin declares, and two declarations of one type stop start-up', async () => {
    const t = await startTestApp({ plugins: defaultPlugins({ admin: false }) });
    apps.push(t);
    const user = await t.createUser();
    await expect(
      recordSecurityEvent(t.services.db, t.clock, { userId: user.id, type: 'never_declared' as never }),
    ).rejects.toThrow('security event type "never_declared" is declared by no plugin');
    await expect(
      startTestApp({
        plugins: [
          ...defaultPlugins(),
          definePlugin({ id: 'again', events: [{ type: 'account_disabled', label: 'Disabled' }] }),
        ],
      }),
    ).rejects.toThrow(
      'plugin "again" declares the security event "account_disabled", which plugin "admin" declares',
    );
    await expect(
      startTestApp({
        plugins: [
          ...defaultPlugins(),
          definePlugin({ id: 'mine', events: [{ type: 'sign_in', label: 'In' }] }),
        ],
      }),
    ).rejects.toThrow('which the core declares');
  });

  it("error codes: the core's and every present plugin's", async () => {
    const t = await startTestApp({
      plugins: [
        ...defaultPlugins({ magicLink: false }),
        definePlugin({ id: 'coded', errorCodes: ['coded.refused'] }),
      ],
    });
    apps.push(t);
    const codes = t.services.errorCodes;
    for (const code of [...CORE_ERROR_CODES, 'admin.forbidden', 'two_factor.required', 'coded.refused'])
      expect(codes).toContain(code);
    expect(codes).not.toContain('magic_link.action_required');
  });
});
