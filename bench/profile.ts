/**
 * `npx tsx bench/profile.ts <list|read|signed-in|bulk|me|bearer|pipeline|hello> [engine|baseline]`: a CPU
 * profile of one benchmark case (same data and routes as `npm run bench`), summarised as self time
 * per area and per function. `pipeline` and `hello` run the ceiling's handlers inside Citadel
 * (engine) or on a bare Fastify (baseline); `me baseline` is the ceiling's one-statement
 * session lookup on the bare Fastify. The raw profile is written to /tmp for Chrome DevTools.
 * Environment: BENCH_DIALECTS (first one used, default sqlite), BENCH_ROWS, BENCH_DURATION,
 * BENCH_CONNECTIONS.
 */
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import type { TestDialect } from '../test/support/databases.ts';
import { load, type LoadOptions } from './load.ts';
import { demoOptions, LIST_QUERY, startBenchTarget } from './setup.ts';
import { startCeiling } from './ceiling.ts';
import { SESSION_COOKIE } from '../src/http/sessions/plugin.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: our engine, the rest of Citadel, a package, or Node itself. */
function area(url: string): string {
  if (url.includes('/src/api/')) return 'citadel src/api (engine)';
  if (url.includes('/examples/')) return 'demo hooks (examples/)';
  if (url.includes('/bench/')) return 'bench (baseline routes)';
  if (url.includes('/src/')) return 'citadel src (other)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node core';
  return url === '' ? '(native: SQLite driver, I/O, GC)' : 'other';
}

function summarise(profile: Profile, top: number, requests: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    total += micros;
    const where = area(frame.url);
    areas.set(where, (areas.get(where) ?? 0) + micros);
    const file = frame.url.replace(/^.*\/(node_modules|work\/[^/]+)\//, '');
    const name = `${frame.functionName || '(anonymous)'}  ${file}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const pct = (micros: number) => `${((100 * micros) / total).toFixed(1).padStart(5)} %`;
  const lines = [
    `on-CPU time per request (this process, load generator included): ${(total / 1000 / requests).toFixed(3)} ms`,
    'self time by area (idle excluded):',
  ];
  for (const [name, micros] of [...areas].sort((a, b) => b[1] - a[1]))
    lines.push(`  ${pct(micros)}  ${name}`);
  lines.push(`top ${top} functions by self time:`);
  for (const [name, micros] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`  ${pct(micros)}  ${name}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const [kind = 'read', who = 'engine'] = process.argv.slice(2);
  const kinds = ['list', 'read', 'signed-in', 'bulk', 'me', 'bearer', 'pipeline', 'hello'];
  if (!kinds.includes(kind) || !['engine', 'baseline'].includes(who)) {
    throw new Error(`usage: tsx bench/profile.ts <${kinds.join('|')}> [engine|baseline]`);
  }
  const dialect = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',')[0] as TestDialect;
  const rows = Number(process.env.BENCH_ROWS ?? 100_000);
  const target = await startBenchTarget(dialect, await demoOptions(), rows, (line) =>
    console.error(`profile: ${line}`),
  );
  // pipeline, hello and me: the ceiling's handlers on a bare Fastify (baseline).
  const bare =
    (kind === 'pipeline' || kind === 'hello' || kind === 'me') && who === 'baseline'
      ? await startCeiling(dialect, target.databaseUrl, target.codec, SESSION_COOKIE)
      : undefined;
  try {
    const base = who === 'engine' ? target.engineBase : target.baselineBase;
    const ceilingBase = bare?.base ?? target.mountedCeilingBase;
    const url =
      kind === 'pipeline'
        ? `${ceilingBase}/posts${target.readPath}`
        : kind === 'hello'
          ? `${ceilingBase}/hello`
          : kind === 'list'
            ? base + LIST_QUERY
            : kind === 'read' || kind === 'signed-in' || kind === 'bearer'
              ? base + target.readPath
              : kind === 'me'
                ? (bare ? bare.base : target.origin) + '/me'
                : base;
    // GET /me and the signed-in read with the bench author's session cookie; the bearer read with its token.
    // JSON like `npm run bench` (without it GET /me answers a browser: a redirect, not the user).
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(kind === 'me' || kind === 'signed-in'
        ? { cookie: target.sessionCookie }
        : kind === 'bearer'
          ? { authorization: `Bearer ${target.token}` }
          : {}),
    };
    const options: LoadOptions =
      kind === 'bulk'
        ? {
            method: 'POST',
            body: target.bulkBody,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
            durationSeconds: Number(process.env.BENCH_DURATION ?? 4),
            connections: 1,
          }
        : {
            headers,
            durationSeconds: Number(process.env.BENCH_DURATION ?? 4),
            connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
          };
    await load(url, { ...options, durationSeconds: 1 }); // warm-up
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    const result = await load(url, options);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    session.disconnect();
    const file = `/tmp/citadel-${dialect}-${kind}-${who}.cpuprofile`;
    await writeFile(file, JSON.stringify(profile));
    console.log(
      `${who} ${kind} on ${dialect}: ${result.requestsPerSecond.toFixed(1)} req/s, p99 ${result.p99Ms} ms, ${result.failures} failures (profile: ${file})`,
    );
    console.log(summarise(profile, 25, result.requests));
  } finally {
    await bare?.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(`profile failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
