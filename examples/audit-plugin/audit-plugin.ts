/**
 * A third-party plugin written against `citadel/plugin` alone: an audit log of the organizations'
 * changes. It shows hooks (a before hook that refuses, an after hook that records and adds a field),
 * `init` with `onClose` (a retention sweep), a security event, an error code, an administrators'
 * endpoint (`auth: 'admin'`) and an organization admins' endpoint (`orgRole`). Needs the
 * organizations plugin. Tested by test/plugin/audit-plugin.test.ts; in an application the import
 * is `citadel/plugin`.
 */
import { Type } from '@sinclair/typebox';
import type { Generated } from 'kysely';
import {
  defineEndpoint,
  definePlugin,
  Envelope,
  ForbiddenError,
  idColumn,
  recordSecurityEvent,
  TIMESTAMP,
  userIdColumn,
  type CitadelMigration,
  type CitadelServices,
  type DeclaredEventTypes,
} from '../../src/plugin-api.ts';

const AUDIT_EVENTS = [{ type: 'audit.organization_created', label: 'Created an organization' }] as const;

// The declared types, for `recordSecurityEvent` (in an application: `declare module 'citadel/plugin'`).
declare module '../../src/plugin-api.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface PluginSecurityEventTypes extends DeclaredEventTypes<typeof AUDIT_EVENTS> {}
}

/** The plugin's table, typed where it is used (`db.withTables`): no change to Citadel's types. */
type AuditTables = {
  audit_entries: {
    id: Generated<number>;
    user_id: number;
    action: string;
    created_at: string;
  };
  /** The organizations plugin's table: the columns read here. */
  organization_members: { organization_id: number; user_id: number };
};

export interface AuditOptions {
  /** Entries older than this are deleted by the sweep. */
  retentionDays: number;
  /** How often the sweep runs (it also runs once at start-up). */
  sweepEverySeconds: number;
  /** Organizations one user may create per day. */
  maxOrganizationsPerDay: number;
  /** Told how many entries each sweep deleted. */
  onSweep?: (deleted: number) => void;
}

const auditDb = (services: CitadelServices) => services.db.withTables<AuditTables>();

const createEntries: CitadelMigration = {
  name: '20261128000000_create_audit_entries',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('audit_entries'), dialect)
      .addColumn('user_id', 'integer', userIdColumn)
      .addColumn('action', 'varchar(100)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('audit_entries').execute();
  },
};

const Entry = Type.Object({ user_id: Type.Integer(), action: Type.String(), created_at: Type.String() });

/** Every change to an organization: the writes under `/organizations`. */
const ORGANIZATION_CHANGES = {
  path: /^\/organizations(\/|$)/,
  method: ['POST', 'PUT', 'PATCH', 'DELETE'],
} as const;

async function sweep(db: ReturnType<typeof auditDb>, now: Date, retentionDays: number): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  const result = await db.deleteFrom('audit_entries').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const auditLog = (options: Partial<AuditOptions> = {}) => {
  const settings: AuditOptions = {
    retentionDays: 90,
    sweepEverySeconds: 3600,
    maxOrganizationsPerDay: 5,
    ...options,
  };
  return definePlugin({
    id: 'audit',
    dependencies: ['organizations'],
    options: settings,
    migrations: [createEntries],
    tables: ['audit_entries'],
    events: AUDIT_EVENTS,
    errorCodes: ['audit.quota'],

    hooks: {
      before: [
        {
          // A quota on creating organizations, counted from the log.
          match: { action: 'organizations.create' },
          async handler({ caller, services }) {
            const since = new Date(services.clock.now().getTime() - 86_400_000).toISOString();
            const { count } = await auditDb(services)
              .selectFrom('audit_entries')
              .select((eb) => eb.fn.countAll<number>().as('count'))
              .where('user_id', '=', caller!.user.id)
              .where('action', '=', 'organizations.create')
              .where('created_at', '>=', since)
              .executeTakeFirstOrThrow();
            if (Number(count) >= settings.maxOrganizationsPerDay)
              throw new ForbiddenError('You created enough organizations for today.', {
                action: 'audit.quota',
              });
          },
        },
      ],
      after: [
        {
          match: ORGANIZATION_CHANGES,
          schema: { fields: { audited: Type.Boolean() } },
          async handler({ caller, services, ip }, result, endpoint) {
            if (result.status !== 'success' || !caller) return;
            const action = result.action ?? endpoint.action;
            await auditDb(services)
              .insertInto('audit_entries')
              .values({ user_id: caller.user.id, action, created_at: services.clock.now().toISOString() })
              .execute();
            if (action === 'organizations.create')
              await recordSecurityEvent(services.db, services.clock, {
                userId: caller.user.id,
                type: AUDIT_EVENTS[0].type,
                ip,
              });
            return { fields: { audited: true } };
          },
        },
      ],
    },

    endpoints: [
      defineEndpoint({
        method: 'GET',
        path: '/audit',
        action: 'audit.index',
        auth: 'admin',
        summary: 'The latest audit entries (administrators)',
        responses: { 200: Envelope({ data: Type.Object({ entries: Type.Array(Entry) }) }) },
        async handler({ services }) {
          const entries = await auditDb(services)
            .selectFrom('audit_entries')
            .select(['user_id', 'action', 'created_at'])
            .orderBy('id', 'desc')
            .limit(50)
            .execute();
          return { status: 'success', data: { entries } };
        },
      }),
      defineEndpoint({
        method: 'GET',
        path: '/organizations/:id/audit',
        action: 'audit.organization',
        auth: 'session',
        orgRole: 'admin',
        summary: "The audit entries of an organization's members (its admins)",
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        responses: { 200: Envelope({ data: Type.Object({ entries: Type.Array(Entry) }) }) },
        async handler({ services, membership }) {
          const entries = await auditDb(services)
            .selectFrom('audit_entries')
            .innerJoin('organization_members', 'organization_members.user_id', 'audit_entries.user_id')
            .select(['audit_entries.user_id', 'audit_entries.action', 'audit_entries.created_at'])
            .where('organization_members.organization_id', '=', membership.id)
            .orderBy('audit_entries.id', 'desc')
            .limit(50)
            .execute();
          return { status: 'success', data: { entries } };
        },
      }),
    ],

    // The retention sweep: once now, then on a timer that stops with the server.
    async init({ services, onClose }) {
      const run = async () =>
        settings.onSweep?.(await sweep(auditDb(services), services.clock.now(), settings.retentionDays));
      await run();
      const timer = setInterval(() => {
        run().catch((error: Error) =>
          services.log.error({ err: { message: error.message } }, 'audit sweep failed'),
        );
      }, settings.sweepEverySeconds * 1000);
      timer.unref();
      onClose(() => clearInterval(timer));
    },
  });
};
