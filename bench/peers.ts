/**
 * `npm run bench:peers`: Citadel against the peers issue 12 names, on this machine, all on SQLite,
 * each server in a process of its own, the load generator (autocannon) in this one, interleaved
 * rounds (bench/rounds.ts) so load from elsewhere hits both sides alike:
 *
 * - `GET /me` with a session cookie against Better Auth's `GET /api/auth/get-session`;
 * - a password sign-in (`POST /login`) against Better Auth's `POST /api/auth/sign-in/email`;
 * - page 2 of 20 posts with the total, 10,000 posts, against Directus's `/items/posts` with
 *   `meta=filter_count`; and the same page with `count=none` when the engine offers it.
 *
 * The peers are installed from the npm registry into bench/peers/node_modules on first run
 * (`npm ci` there, native modules built from source: nothing downloads a binary). Environment:
 * BENCH_DURATION (seconds per case, default 8), BENCH_CONNECTIONS (default 10), BENCH_PEER_POSTS
 * (default 10000).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PasswordHasher } from '../src/auth/core/passwords.ts';
import { freePort } from '../test/support/processes.ts';
import type { LoadOptions } from './load.ts';
import { pair } from './rounds.ts';
import { startProcess, startServeProcess } from './serve-process.ts';
import { demoOptions, startBenchTarget } from './setup.ts';
import { printTable, type Row } from './table.ts';

const PEERS = resolve(import.meta.dirname, 'peers');
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const POSTS = Number(process.env.BENCH_PEER_POSTS ?? 10_000);
const PAGE_QUERY = 'page=2&limit=20&sort=-created_at';
const EMAIL = 'bench-login@example.com';
const PASSWORD = 'a long bench password 7431';

const log = (line: string) => console.error(`bench: ${line}`);

function installPeers(): void {
  if (existsSync(join(PEERS, 'node_modules/.package-lock.json'))) return;
  log('installing the peers into bench/peers (npm ci; a few minutes the first time)');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: PEERS,
    stdio: 'inherit',
    // Native modules (better-sqlite3, Directus's sqlite3 and isolated-vm) compile here instead of
    // fetching prebuilt binaries from outside the registry.
    env: { ...process.env, npm_config_build_from_source: 'true' },
  });
  if (result.status !== 0) throw new Error('npm ci in bench/peers failed');
}

async function call(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { accept: 'application/json', 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  const body: unknown = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return { status: response.status, body, headers: response.headers };
}

/** Better Auth with email and password on its own SQLite file; one user, signed in once. */
async function startBetterAuth(dir: string) {
  const port = await freePort();
  const peer = await startProcess(
    'Better Auth',
    [process.execPath, join(PEERS, 'better-auth-server.mjs')],
    {
      cwd: PEERS,
      port,
      env: {
        PORT: String(port),
        DB_FILE: join(dir, 'better-auth.db'),
        BETTER_AUTH_SECRET: 'bench-better-auth-secret-0123456789abcdef',
        NODE_ENV: 'production',
      },
    },
    async (origin) => (await fetch(`${origin}/api/auth/ok`)).ok,
  );
  const headers = { origin: peer.origin };
  await call(`${peer.origin}/api/auth/sign-up/email`, {
    method: 'POST',
    headers,
    body: { email: EMAIL, password: PASSWORD, name: 'Bench' },
  });
  const signIn = await call(`${peer.origin}/api/auth/sign-in/email`, {
    method: 'POST',
    headers,
    body: { email: EMAIL, password: PASSWORD },
  });
  const cookie = signIn.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
  const session = await call(`${peer.origin}/api/auth/get-session`, { headers: { cookie } });
  if (!(session.body as { user?: { email?: string } } | null)?.user?.email)
    throw new Error('Better Auth get-session did not return the signed-in user');
  return { ...peer, cookie };
}

/**
 * Directus on its own SQLite file: a `posts` collection with the engine's columns, the same rows
 * (every tenth a draft), the public role allowed to read. Directus restricts permission rules
 * (`custom_permission_rules_enabled`), so the published-only rule is a query filter instead.
 */
async function startDirectus(dir: string, posts: number) {
  const port = await freePort();
  writeFileSync(join(dir, 'package.json'), '{"name":"directus-bench","private":true}\n');
  const env = {
    DB_CLIENT: 'sqlite3',
    DB_FILENAME: join(dir, 'directus.db'),
    KEY: 'bench-directus-key',
    SECRET: 'bench-directus-secret-0123456789abcdefghij',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'bench-admin-password-1234',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    TELEMETRY: 'false',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    CACHE_ENABLED: 'false',
  };
  const cli = join(PEERS, 'node_modules/.bin/directus');
  const bootstrap = spawnSync(cli, ['bootstrap'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    encoding: 'utf8',
  });
  if (bootstrap.status !== 0) throw new Error(`directus bootstrap failed:\n${bootstrap.stderr}`);
  const peer = await startProcess(
    'Directus',
    [cli, 'start'],
    { cwd: dir, env, port },
    async (origin) => (await fetch(`${origin}/server/ping`)).ok,
  );
  const login = await call(`${peer.origin}/auth/login`, {
    method: 'POST',
    body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD },
  });
  const admin = {
    authorization: `Bearer ${(login.body as { data: { access_token: string } }).data.access_token}`,
  };
  await call(`${peer.origin}/collections`, {
    method: 'POST',
    headers: admin,
    body: { collection: 'posts', schema: {}, meta: null },
  });
  for (const field of [
    { field: 'title', type: 'string', schema: { is_nullable: false } },
    { field: 'body', type: 'text' },
    { field: 'status', type: 'string', schema: { is_indexed: true } },
    { field: 'created_at', type: 'timestamp', schema: { is_indexed: true } },
    { field: 'updated_at', type: 'timestamp' },
  ])
    await call(`${peer.origin}/fields/posts`, { method: 'POST', headers: admin, body: field });
  const start = Date.UTC(2024, 0, 1);
  for (let from = 0; from < posts; from += 1000) {
    const rows = Array.from({ length: Math.min(1000, posts - from) }, (_, k) => {
      const i = from + k;
      const at = new Date(start + i * 60_000).toISOString();
      return {
        title: `Post number ${i}`,
        body: `The body of post ${i}.`,
        status: i % 10 === 0 ? 'draft' : 'published',
        created_at: at,
        updated_at: at,
      };
    });
    await call(`${peer.origin}/items/posts`, { method: 'POST', headers: admin, body: rows });
  }
  const policies = await call(`${peer.origin}/policies?fields=id,name&limit=-1`, { headers: admin });
  const publicPolicy = (policies.body as { data: { id: string; name: string }[] }).data.find((p) =>
    /public/i.test(p.name),
  );
  if (!publicPolicy) throw new Error('Directus has no public policy');
  await call(`${peer.origin}/permissions`, {
    method: 'POST',
    headers: admin,
    body: { policy: publicPolicy.id, collection: 'posts', action: 'read', fields: ['*'] },
  });
  const pageUrl = `${peer.origin}/items/posts?limit=20&page=2&sort=-created_at&filter[status][_eq]=published&meta=filter_count`;
  const page = (await call(pageUrl)).body as { data: unknown[]; meta: { filter_count: number } };
  if (page.data.length !== 20 || page.meta.filter_count !== posts - Math.ceil(posts / 10))
    throw new Error(`Directus page check failed: ${JSON.stringify(page).slice(0, 300)}`);
  return { ...peer, pageUrl };
}

async function main(): Promise<void> {
  installPeers();
  const dir = mkdtempSync(join(tmpdir(), 'citadel-peers-'));
  log(`${POSTS} posts, ${DURATION} s per case, ${CONNECTIONS} connections, loopback only`);
  // The demo database, seeded in this process, then served by `citadel serve` in its own process.
  const target = await startBenchTarget('sqlite', await demoOptions(), POSTS, log);
  const stops: (() => Promise<void>)[] = [() => target.close()];
  const rows: Row[] = [];
  try {
    await target.server.services.users.create({
      username: 'bench login',
      email: EMAIL,
      passwordHash: await new PasswordHasher().hash(PASSWORD),
      active: true,
    });
    const citadel = await startServeProcess(target.databaseUrl, 1);
    stops.unshift(() => citadel.close());
    const betterAuth = await startBetterAuth(dir);
    stops.unshift(() => betterAuth.close());
    const directus = await startDirectus(dir, POSTS);
    stops.unshift(() => directus.close());

    const get: LoadOptions = {
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      headers: { accept: 'application/json' },
    };
    // Four connections for sign-in: Citadel counts a sign-in attempt per identifier and address
    // before it checks the password (5 at once at most, contract section 13), and four saturate
    // two cores with Argon2id or scrypt anyway. Both sides get the same.
    const postJson = (body: unknown, headers: Record<string, string> = {}): LoadOptions => ({
      ...get,
      connections: Math.min(CONNECTIONS, 4),
      method: 'POST',
      body: JSON.stringify(body),
      headers: { ...get.headers, 'content-type': 'application/json', ...headers },
    });
    const credentials = { email: EMAIL, password: PASSWORD };
    await call(`${citadel.origin}/me`, { headers: { cookie: target.sessionCookie } });
    await call(`${citadel.origin}/login`, { method: 'POST', body: credentials });

    rows.push(
      await pair(
        'GET /me ÷ Better Auth get-session',
        'sqlite',
        `${citadel.origin}/me`,
        `${betterAuth.origin}/api/auth/get-session`,
        { ...get, headers: { ...get.headers, cookie: target.sessionCookie } },
        { ...get, headers: { ...get.headers, cookie: betterAuth.cookie } },
      ),
      await pair(
        'POST /login ÷ Better Auth sign-in',
        'sqlite',
        `${citadel.origin}/login`,
        `${betterAuth.origin}/api/auth/sign-in/email`,
        postJson(credentials),
        postJson(credentials, { origin: betterAuth.origin }),
      ),
    );
    const posts = new URL(target.engineBase).pathname;
    const withTotal = `${citadel.origin}${posts}?${PAGE_QUERY}`;
    rows.push(
      await pair(
        'page 2 of 20 with total ÷ Directus filter_count',
        'sqlite',
        withTotal,
        directus.pageUrl,
        get,
      ),
    );
    const withoutCount = `${withTotal}&count=none`;
    const offered = await fetch(withoutCount, { headers: { accept: 'application/json' } });
    if (offered.ok) {
      rows.push(
        await pair(
          'page 2 of 20, count=none ÷ Directus filter_count',
          'sqlite',
          withoutCount,
          directus.pageUrl,
          get,
        ),
      );
    } else {
      log(`count=none answered ${offered.status}: that case is left out`);
    }
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => log(`stop: ${String(error)}`));
  }
  printTable(rows);
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
