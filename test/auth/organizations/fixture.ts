import { Type } from '@sinclair/typebox';
import {
  createApi,
  defaultPlugins,
  defineResource,
  organizations,
  type CitadelMigration,
} from '../../../src/index.ts';
import { TIMESTAMP, idColumn } from '../../../src/db/columns.ts';
import { projects } from '../../../examples/blog/resources/projects.ts';
import { projectsMigration } from '../../../examples/blog/migrations.ts';
import { startApiApp, type ApiApp } from '../../support/api-app.ts';
import type { UserRecord } from '../../../src/auth/core/users.ts';
import type { TestClient } from '../../support/client.ts';
import type { TestAppOptions } from '../../support/app.ts';

/** Tasks of a project: tenant-scoped too, to check derive and nested reads across both. */
export const tasks = defineResource({
  name: 'tasks',
  version: 'v1',
  tenant: 'organization_id',
  columns: {
    id: { type: 'integer', readOnly: true },
    organization_id: { type: 'integer', readOnly: true },
    project_id: { type: 'integer' },
    title: { type: 'string' },
    created_at: { type: 'datetime', readOnly: true, timestamp: 'created' },
  },
  relations: { project: { type: 'belongsTo', resource: 'projects', foreignKey: 'project_id' } },
  allowedRelations: ['project'],
  obfuscatedFields: ['project_id'],
  sortable: ['id', 'title'],
  filterable: ['project_id'],
  formClass: {
    post: Type.Object({ project_id: Type.String(), title: Type.String({ minLength: 1, maxLength: 100 }) }),
    patch: Type.Object({ title: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
  },
  hooks: {
    // A hook that tries to move a row to another organization: the engine has the last word.
    beforeSave(data) {
      return { ...data, organization_id: 999_999 };
    },
  },
});

/** Projects with their tasks as a derivable relation (the demo's resource, plus one relation). */
const projectsWithTasks = defineResource({
  ...projects,
  relations: { tasks: { type: 'hasMany', resource: 'tasks', foreignKey: 'project_id' } },
  allowedRelations: ['tasks'],
});

export const tenantApi = createApi({
  apiName: 'Tenancy test API',
  apiBaseUrl: '/api',
  resources: [projectsWithTasks, tasks],
}).publish({ version: 'v1' });

const tasksMigration: CitadelMigration = {
  name: '0711_tasks',
  async up(db, dialect) {
    await idColumn(db.schema.createTable('tasks'), dialect)
      .addColumn('organization_id', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull())
      .addColumn('title', 'varchar(100)', (c) => c.notNull())
      .addColumn('created_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    for (const column of ['id', 'title', 'project_id'])
      await db.schema
        .createIndex(`tasks_organization_id_${column}`)
        .on('tasks')
        .columns(['organization_id', column])
        .execute();
    await db.schema.createIndex('tasks_project_id').on('tasks').column('project_id').execute();
  },
};

export const DEMO_ROLES = {
  member: ['projects:read', 'projects:create', 'projects:update', 'tasks:*'],
  viewer: ['projects:read', 'tasks:read'],
};

export function startTenantApp(options: TestAppOptions = {}): Promise<ApiApp> {
  return startApiApp(tenantApi, [projectsMigration, tasksMigration], {
    plugins: [...defaultPlugins(), organizations({ roles: DEMO_ROLES })],
    ...options,
  });
}

/** Create an organization as `client` (it becomes the client's active one); its id. */
export async function createOrganization(client: TestClient, name: string): Promise<number> {
  const response = await client.post('/organizations', { name });
  if (response.status !== 201) throw new Error(`create organization: ${response.status} ${response.text}`);
  return response.body.data.organization.id as number;
}

/** Make `user` a member of `organizationId` with `role`, straight in the table (fast fixtures). */
export async function addMember(
  t: ApiApp,
  organizationId: number,
  user: UserRecord,
  role: string,
): Promise<void> {
  await t.services.db
    .insertInto('organization_members')
    .values({ organization_id: organizationId, user_id: user.id, role, created_at: new Date().toISOString() })
    .execute();
}
