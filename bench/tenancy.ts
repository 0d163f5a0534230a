/**
 * `npm run bench:tenancy`: what tenant scoping (contract section 17) costs a list (issue 23: a
 * tenant-scoped list at most 1.2x an unscoped list of the same size).
 *
 * Per dialect, one fresh database: the demo's `projects` table with ROWS rows spread over ORGS
 * organizations (row i in organization i mod ORGS, so an organization's rows are scattered over
 * the table), inserted in SQL in batches, with the demo's indexes (`organization_id` leading, as
 * `citadel check` asks). Two resources over that one table, on one server on loopback: the demo's
 * tenant-scoped `projects` and `projects_all`, its unscoped twin (same columns, sort, ids). Both
 * are read by the same signed-in member (a session acting in one organization), so the difference
 * is the scoping alone: the membership lookup and `WHERE organization_id = ?`.
 * Cases: the first page (default limit, default sort, `count=none`), the page after it by cursor,
 * and the first page with the default `count=exact` (which counts the organization's rows against
 * every row of the table: listed, not the aim). Each case: ROUNDS rounds of autocannon, tenant and
 * unscoped alternating (who goes first alternates too); per round the cost ratio is the unscoped
 * req/s over the tenant req/s; the table gives both req/s over all rounds and the ratio's minimum
 * and median, and this process's CPU time per request (server, SQLite reader threads and load
 * generator: less sensitive to the machine's other load). The 1-minute load average is printed
 * with each case.
 *
 * Environment: BENCH_ROWS (1000000), BENCH_ORGS (1000), BENCH_ROUNDS (10), BENCH_DURATION (seconds
 * per round and side, 1.5), BENCH_CONNECTIONS (10), BENCH_DIALECTS ("sqlite,postgres"),
 * BENCH_EXPLAIN=1 (log both dialects' plans of the two first-page queries).
 */
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { createApi, defineResource } from '../src/index.ts';
import { createServer } from '../src/app/server.ts';
import { randomToken, sha256Hex } from '../src/core/crypto.ts';
import { SESSION_COOKIE } from '../src/http/sessions/plugin.ts';
import { createTestDatabase, type TestDialect } from '../test/support/databases.ts';
import { projects } from '../examples/blog/resources/projects.ts';
import { BENCH_SECRET, demoOptions } from './setup.ts';
import { load, type LoadResult } from './load.ts';
import { combine } from './rounds.ts';
import type { AnyDb } from './seed.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ORGS = Number(process.env.BENCH_ORGS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 1.5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const BATCH = 100_000;

const log = (line: string) => console.error(`bench: ${line}`);

/** The unscoped twin of the demo's `projects`: the same table, columns, sort and ids. */
const projectsAll = defineResource({
  ...projects,
  name: 'projects_all',
  table: 'projects',
  tenant: undefined,
  description: 'Every project of every organization (unscoped twin, benchmark only).',
  requiredAuth: [],
});

const api = createApi({
  apiName: 'Tenancy benchmark API',
  apiBaseUrl: '/api',
  resources: [projects, projectsAll],
}).publish({ version: 'v1' });

/** ORGS organizations and ROWS projects, in SQL, BATCH rows a statement. */
async function seedRows(db: AnyDb, dialect: TestDialect): Promise<void> {
  const now = new Date().toISOString();
  if (dialect === 'postgres') {
    await sql`insert into organizations (name, slug, created_at)
      select 'Organization ' || n, 'org-' || n, ${now} from generate_series(1, ${sql.lit(ORGS)}) as n`.execute(
      db,
    );
  } else {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(ORGS)})
      insert into organizations (name, slug, created_at) select 'Organization ' || i, 'org-' || i, ${now} from n`.execute(
      db,
    );
  }
  const { first } = (await sql<{ first: number }>`select min(id) as first from organizations`.execute(db))
    .rows[0]!;
  for (let from = 1; from <= ROWS; from += BATCH) {
    const to = Math.min(ROWS, from + BATCH - 1);
    if (dialect === 'postgres') {
      await sql`insert into projects (organization_id, name, description, created_at)
        select ${sql.lit(first)} + (n % ${sql.lit(ORGS)}), 'Project ' || n, 'Description of project ' || n, ${now}
        from generate_series(${sql.lit(from)}, ${sql.lit(to)}) as n`.execute(db);
    } else {
      await sql`with recursive n(i) as (select ${sql.lit(from)} union all select i + 1 from n where i < ${sql.lit(to)})
        insert into projects (organization_id, name, description, created_at)
        select ${sql.lit(first)} + (i % ${sql.lit(ORGS)}), 'Project ' || i, 'Description of project ' || i, ${now} from n`.execute(
        db,
      );
    }
  }
  await sql`analyze`.execute(db);
}

/** Both dialects' plans of the query a first page runs, scoped and unscoped. */
async function explain(db: AnyDb, dialect: TestDialect, organizationId: number): Promise<void> {
  const prefix = dialect === 'postgres' ? 'explain (analyze, buffers)' : 'explain query plan';
  for (const where of [sql`where organization_id = ${organizationId}`, sql``]) {
    const plan = await sql<Record<string, unknown>>`${sql.raw(prefix)} select * from projects ${where}
      order by id limit 21`.execute(db);
    log(plan.rows.map((row) => String(row['QUERY PLAN'] ?? row.detail ?? JSON.stringify(row))).join('\n'));
  }
}

interface CaseResult {
  name: string;
  dialect: string;
  tenant: LoadResult;
  unscoped: LoadResult;
  ratios: number[];
  load: number;
}

async function measure(
  name: string,
  dialect: string,
  tenantUrl: string,
  unscopedUrl: string,
  headers: Record<string, string>,
): Promise<CaseResult> {
  log(`${dialect}: ${name}`);
  for (const url of [tenantUrl, unscopedUrl]) {
    const response = await fetch(url, { headers });
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    await load(url, { headers, durationSeconds: 1, connections: CONNECTIONS }); // warm-up
  }
  const options = { headers, durationSeconds: DURATION, connections: CONNECTIONS };
  const tenantRuns: LoadResult[] = [];
  const unscopedRuns: LoadResult[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let tenant: LoadResult;
    let unscoped: LoadResult;
    if (i % 2 === 0) {
      tenant = await load(tenantUrl, options);
      unscoped = await load(unscopedUrl, options);
    } else {
      unscoped = await load(unscopedUrl, options);
      tenant = await load(tenantUrl, options);
    }
    tenantRuns.push(tenant);
    unscopedRuns.push(unscoped);
    // Cost is time per request: tenant cost over unscoped cost.
    ratios.push(unscoped.requestsPerSecond / tenant.requestsPerSecond);
  }
  const tenant = combine(tenantRuns);
  const unscoped = combine(unscopedRuns);
  for (const [who, result] of [
    ['tenant', tenant],
    ['unscoped', unscoped],
  ] as const)
    if (result.failures > 0) throw new Error(`${dialect} ${name}: ${who} had ${result.failures} failures`);
  return { name, dialect, tenant, unscoped, ratios, load: loadavg()[0]! };
}

async function benchDialect(dialect: TestDialect): Promise<CaseResult[]> {
  const database = await createTestDatabase(dialect);
  const server = await createServer({
    ...(await demoOptions()),
    api,
    env: {},
    logger: false,
    seedDemo: false,
    databaseUrl: database.url,
    sessionSecret: BENCH_SECRET,
    appUrl: 'http://127.0.0.1',
    dataDir: '/tmp/citadel-bench-data',
  });
  try {
    const { services, config, app } = server;
    const db = services.db as unknown as AnyDb;
    const started = performance.now();
    await seedRows(db, dialect);
    log(
      `${dialect}: ${ROWS} rows over ${ORGS} organizations in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    // The member acts in an organization in the middle of the range.
    const { id: organizationId } = (
      await sql<{
        id: number;
      }>`select id from organizations order by id limit 1 offset ${Math.floor(ORGS / 2)}`.execute(db)
    ).rows[0]!;
    const member = await services.users.create({
      username: 'bench member',
      email: 'member@example.com',
      passwordHash: null,
      active: true,
    });
    await services.db
      .insertInto('organization_members')
      .values({
        organization_id: organizationId,
        user_id: member.id,
        role: 'member',
        created_at: new Date().toISOString(),
      })
      .execute();
    const rawSession = randomToken(32);
    await services.sessions.insert(sha256Hex(rawSession), {
      userId: member.id,
      data: { organization_id: organizationId },
      expiresAt: new Date(Date.now() + config.limits.sessionIdleTtl * 1000).toISOString(),
    });
    const headers = { accept: 'application/json', cookie: `${SESSION_COOKIE}=${rawSession}` };
    if (EXPLAIN) await explain(db, dialect, organizationId);

    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
    const nextCursor = async (url: string) => {
      const response = await fetch(url, { headers });
      const body = (await response.json()) as {
        data: unknown[];
        pagination?: { nextCursor?: string | null };
      };
      const cursor = body.pagination?.nextCursor;
      if (response.status !== 200 || !cursor) throw new Error(`${url}: ${response.status}, no cursor`);
      return encodeURIComponent(cursor);
    };
    const tenantFirst = `${base}/projects?count=none`;
    const unscopedFirst = `${base}/projects_all?count=none`;
    const results = [
      await measure('first page', dialect, tenantFirst, unscopedFirst, headers),
      await measure(
        'cursor page',
        dialect,
        `${tenantFirst}&cursor=${await nextCursor(tenantFirst)}`,
        `${unscopedFirst}&cursor=${await nextCursor(unscopedFirst)}`,
        headers,
      ),
      await measure('first page, count=exact', dialect, `${base}/projects`, `${base}/projects_all`, headers),
    ];
    return results;
  } finally {
    await server.close();
    await database.drop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** This process's CPU time (server, SQLite reader threads and load generator) per request. */
const cpu = (result: LoadResult) => result.cpuMicros / result.requests;

async function main(): Promise<void> {
  log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const results: CaseResult[] = [];
  for (const dialect of DIALECTS) results.push(...(await benchDialect(dialect)));
  console.log(
    '| case | db | tenant req/s | tenant p99 ms | unscoped req/s | unscoped p99 ms | cost ratio min | cost ratio median | CPU µs/req tenant | CPU µs/req unscoped | CPU ratio | load |',
  );
  console.log('|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.dialect} | ${r.tenant.requestsPerSecond.toFixed(0)} | ${r.tenant.p99Ms} | ${r.unscoped.requestsPerSecond.toFixed(0)} | ${r.unscoped.p99Ms} | ${Math.min(...r.ratios).toFixed(2)} | ${median(r.ratios).toFixed(2)} | ${cpu(r.tenant).toFixed(0)} | ${cpu(r.unscoped).toFixed(0)} | ${(cpu(r.tenant) / cpu(r.unscoped)).toFixed(2)} | ${r.load.toFixed(1)} |`,
    );
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
