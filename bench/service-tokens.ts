/**
 * `npx tsx bench/service-tokens.ts`: what a service token (contract section 18) costs as a bearer.
 * Three pairs per database, on the demo server (loopback, autocannon, rounds alternating):
 * - a single resource read with a JWT bearer against the same read anonymous (aim: at most 1.1x
 *   the anonymous read's time, i.e. a req/s ratio of at least 0.91); the demo's posts show their
 *   author's drafts too, so the signed-in read runs another statement than the anonymous one;
 * - the same with a JWT that lacks `posts:read`: read as anonymous, the same statement, so the
 *   difference is the bearer's alone;
 * - GET /me with a JWT bearer against GET /me with a session cookie (aim on PostgreSQL: the JWT at
 *   least 1.5x as fast).
 *
 * Environment: BENCH_DURATION (seconds per case and side, default 4), BENCH_CONNECTIONS (10),
 * BENCH_ROWS (posts, default 10000), BENCH_DIALECTS (default "sqlite,postgres").
 */
import type { TestDialect } from '../test/support/databases.ts';
import { demoOptions, startBenchTarget } from './setup.ts';
import { pair } from './rounds.ts';
import { printTable, type Row } from './table.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as TestDialect[];

const log = (line: string) => console.error(`bench: ${line}`);

async function main(): Promise<void> {
  const options = await demoOptions();
  const rows: Row[] = [];
  for (const dialect of DIALECTS) {
    const target = await startBenchTarget(dialect, options, ROWS, (line) => log(`${dialect}: ${line}`));
    try {
      const jwt = await mint(target.origin, target.sessionCookie, {});
      // A token without `posts:read`: the engine reads for it as for an anonymous caller (the same
      // statement), so the pair measures the bearer alone, not the demo's visibility rule.
      const narrow = await mint(target.origin, target.sessionCookie, { abilities: ['comments:read'] });
      const get = {
        durationSeconds: DURATION,
        connections: CONNECTIONS,
        headers: { accept: 'application/json' },
      };
      const bearer = { ...get, headers: { ...get.headers, authorization: `Bearer ${jwt}` } };
      const narrowBearer = { ...get, headers: { ...get.headers, authorization: `Bearer ${narrow}` } };
      const cookie = { ...get, headers: { ...get.headers, cookie: target.sessionCookie } };
      for (const [url, headers] of [
        [target.engineBase + target.readPath, bearer.headers],
        [target.engineBase + target.readPath, narrowBearer.headers],
        [`${target.origin}/me`, bearer.headers],
        [`${target.origin}/me`, cookie.headers],
      ] as const) {
        const response = await fetch(url, { headers });
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      }
      const read = target.engineBase + target.readPath;
      rows.push(await pair('JWT-bearer read / anonymous read', dialect, read, read, bearer, get));
      rows.push(
        await pair(
          'JWT-bearer read, same statement / anonymous read',
          dialect,
          read,
          read,
          narrowBearer,
          get,
        ),
      );
      const me = `${target.origin}/me`;
      rows.push(await pair('GET /me: JWT bearer / session cookie', dialect, me, me, bearer, cookie));
    } finally {
      await target.close();
    }
  }
  printTable(rows);
}

/** A service token for the session of `cookie` (`body`: POST /token's, for example `abilities`). */
async function mint(origin: string, cookie: string, body: Record<string, unknown>): Promise<string> {
  const minted = await fetch(`${origin}/token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', cookie },
    body: JSON.stringify(body),
  });
  const { access_token: jwt } = (await minted.json()) as { access_token?: string };
  if (minted.status !== 200 || !jwt) throw new Error(`POST /token answered ${minted.status}`);
  return jwt;
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
