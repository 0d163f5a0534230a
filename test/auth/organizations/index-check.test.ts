import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, defineResource, type CitadelMigration } from '../../../src/index.ts';
import { idColumn } from '../../../src/db/columns.ts';
import { compileApi } from '../../../src/api/resource/compile.ts';
import { checkIndexes } from '../../../src/api/read/index-check.ts';
import { testDialect } from '../../support/databases.ts';
import type { ApiApp } from '../../support/api-app.ts';
import { startTenantApp, tenantApi } from './fixture.ts';

const dialect = testDialect();

/** A tenant-scoped table whose indexes do not lead with the tenant column. */
const notes = defineResource({
  name: 'notes',
  tenant: 'organization_id',
  columns: {
    id: { type: 'integer', readOnly: true },
    organization_id: { type: 'integer', readOnly: true },
    title: { type: 'string' },
  },
  sortable: ['id', 'title'],
  searchable: [],
});
const notesApi = createApi({ apiName: 'notes', apiBaseUrl: '/api', resources: [notes] }).publish({
  version: 'v1',
});

const notesMigration: CitadelMigration = {
  name: '0712_notes',
  async up(db, d) {
    await idColumn(db.schema.createTable('notes'), d)
      .addColumn('organization_id', 'integer', (c) => c.notNull())
      .addColumn('title', 'varchar(100)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notes_title').on('notes').column('title').execute();
  },
};

describe('index check of tenant-scoped resources (citadel check)', () => {
  let t: ApiApp;
  beforeAll(async () => {
    t = await startTenantApp({ migrations: undefined });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test table
    await notesMigration.up(t.services.db as any, dialect);
  });
  afterAll(async () => t?.close());

  it('the tenant column must lead the index of every sort, and an index at all', async () => {
    const report = await checkIndexes(t.services.db, dialect, compileApi(notesApi, dialect).values());
    const found = report.missing.map((m) => `${m.resource} ${m.use} ${m.table}.${m.column}`);
    // A title index alone does not serve `WHERE organization_id = ? ORDER BY title`.
    expect(found).toEqual([
      'notes sortable notes.organization_id, id',
      'notes sortable notes.organization_id, title',
    ]);
    const statement = report.missing[1]!.statement;
    expect(statement).toBe('CREATE INDEX notes_organization_id_title ON notes (organization_id, title);');
    await sql.raw(statement).execute(t.services.db);
    await sql.raw(report.missing[0]!.statement).execute(t.services.db);
    const after = await checkIndexes(t.services.db, dialect, compileApi(notesApi, dialect).values());
    expect(after.missing).toEqual([]);
  });

  it('the tenancy fixture (and the demo projects) index every tenant read', async () => {
    const report = await checkIndexes(t.services.db, dialect, compileApi(tenantApi, dialect).values());
    expect(report.missing.filter((m) => m.use !== 'searchable' || dialect !== 'mysql')).toEqual([]);
  });
});
