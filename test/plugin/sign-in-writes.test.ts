import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Generated } from 'kysely';
import { defaultPlugins, definePlugin, type CitadelMigration } from '../../src/index.ts';
import { idColumn, TIMESTAMP } from '../../src/migrations.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';

/**
 * Contract section 15: a plugin's `signedIn` listener gets plain data (the request's ip, user agent,
 * cookies and session; no HTTP framework object) and adds to what the sign-in writes: a row
 * through `record` and a cookie through `setCookie`. The HTTP adapter commits them with the new
 * session, in one transaction, before the answer: all of it, or (the user deleted meanwhile, so
 * the session row fails its foreign key) none of it, and no cookie.
 */
interface AuditTable {
  id: Generated<number>;
  user_id: number;
  ip: string;
  user_agent: string | null;
  created_at: string;
}
declare module '../../src/db/schema.ts' {
  interface Database {
    plugin_sign_in_audit: AuditTable;
  }
}

const auditMigration: CitadelMigration = {
  name: '1000_plugin_sign_in_audit',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('plugin_sign_in_audit'), dialect)
      // No foreign key: only the transaction can take this row back with the session.
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('ip', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_agent', 'varchar(512)')
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
};

const committed: number[] = [];
const seen: { keys: string[]; cookieNames: string[] }[] = [];

const auditPlugin = definePlugin({
  id: 'audit',
  migrations: [auditMigration],
  hooks: {
    async signedIn({ user, info, request, setCookie, record }) {
      seen.push({ keys: Object.keys(request), cookieNames: Object.keys(request.cookies) });
      request.session.set('audit_method', info.method);
      record({
        table: 'plugin_sign_in_audit',
        values: {
          user_id: user.id,
          ip: request.ip,
          user_agent: request.userAgent,
          created_at: request.services.clock.now().toISOString(),
        },
        afterCommit: () => committed.push(user.id),
      });
      setCookie('audit_seen', String(user.id), 3600);
      // The account is deleted while its sign-in is under way: nothing of the sign-in may stay.
      if (user.username.startsWith('vanishing'))
        await request.services.db.deleteFrom('users').where('id', '=', user.id).execute();
    },
  },
});

describe("a plugin's signedIn listener: plain data in, its writes committed with the session", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ plugins: [...defaultPlugins(), auditPlugin] });
  });
  afterAll(async () => t?.close());

  const auditRows = (userId: number) =>
    t.services.db.selectFrom('plugin_sign_in_audit').selectAll().where('user_id', '=', userId).execute();

  it('its row, its cookie and its session data arrive with the sign-in', async () => {
    const user = await t.createUser();
    const client = t.client();
    const response = await client.post('/login', { email: user.email, password: TEST_PASSWORD }, 'json', {
      headers: { 'user-agent': 'AuditTest/1.0', cookie: 'before=1' },
    });
    expect(response.status).toBe(200);
    expect(client.cookie('audit_seen')).toBe(String(user.id));
    expect(String(response.headers['set-cookie'])).toMatch(/audit_seen=\d+; Max-Age=3600; Path=\/; HttpOnly/);
    const rows = await auditRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_agent: 'AuditTest/1.0' });
    expect(committed).toContain(user.id);
    // The listener saw the request's cookies and no Fastify object.
    const last = seen.at(-1)!;
    expect(last.cookieNames).toContain('before');
    expect(last.keys).not.toContain('raw');
    expect(last.keys).not.toContain('server');
    // What it put in the session was stored with it, and the event the account center records.
    const sessions = await t.services.db
      .selectFrom('sessions')
      .select('data')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions.map((row) => JSON.parse(row.data).audit_method)).toEqual(['sign_in']);
    expect((await client.get('/me')).body.user.id).toBe(user.id);
    const events = await t.services.db
      .selectFrom('security_events')
      .select('type')
      .where('user_id', '=', user.id)
      .execute();
    expect(events.map((event) => event.type)).toEqual(['sign_in']);
  });

  it('a sign-in whose session cannot be stored keeps none of its writes and sets none of its cookies', async () => {
    const user = await t.createUser({ username: `vanishing${Date.now()}` });
    const client = t.client();
    const response = await client.post('/login', { email: user.email, password: TEST_PASSWORD });
    expect(response.status).toBe(401);
    expect(client.cookie('audit_seen')).toBeUndefined();
    expect(client.cookie('citadel_session')).toBeUndefined();
    expect(await auditRows(user.id)).toEqual([]);
    expect(committed).not.toContain(user.id);
    expect((await client.get('/me')).status).toBe(401);
  });
});
