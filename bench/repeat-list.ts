/**
 * `npm run bench:repeat-list`: the case "list 20 with total, page 50 / ceiling" of `npm run bench`,
 * repeated, each repetition its own interleaved pair, so that the spread of its ratio shows. On a
 * two-core machine the case is bound by the database's count (about 13 ms of PostgreSQL CPU per
 * request at 100,000 posts), and one four-second pair of `npm run bench` ranged from 0.84 to 1.12.
 * Environment: BENCH_DIALECTS (first one used, default postgres), BENCH_ROWS (100,000),
 * BENCH_DURATION (seconds per side and repetition, default 8), BENCH_REPEAT (6),
 * BENCH_CONNECTIONS (10).
 */
import { loadavg } from 'node:os';
import type { TestDialect } from '../test/support/databases.ts';
import { SESSION_COOKIE } from '../src/http/sessions/plugin.ts';
import { demoOptions, startBenchTarget } from './setup.ts';
import { CEILING_LIST_QUERY, startCeiling } from './ceiling.ts';
import { pair } from './rounds.ts';

const dialect = (process.env.BENCH_DIALECTS ?? 'postgres').split(',')[0] as TestDialect;
const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function main(): Promise<void> {
  const target = await startBenchTarget(dialect, await demoOptions(), ROWS, (line) =>
    console.error(`bench: ${dialect}: ${line}`),
  );
  const ceiling = await startCeiling(dialect, target.databaseUrl, target.codec, SESSION_COOKIE);
  try {
    const get = {
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      headers: { accept: 'application/json' },
    };
    const ratios: number[] = [];
    console.log(`| run | engine req/s | ceiling req/s | engine/ceiling | load |`);
    console.log(`|---:|---:|---:|---:|---:|`);
    for (let run = 1; run <= REPEAT; run++) {
      const row = await pair(
        'list 20 with total, page 50 / ceiling',
        dialect,
        target.engineBase + CEILING_LIST_QUERY,
        ceiling.base + '/posts' + CEILING_LIST_QUERY,
        get,
      );
      const ratio = row.engine.requestsPerSecond / row.baseline.requestsPerSecond;
      ratios.push(ratio);
      console.log(
        `| ${run} | ${row.engine.requestsPerSecond.toFixed(1)} | ${row.baseline.requestsPerSecond.toFixed(1)} | ${ratio.toFixed(2)} | ${loadavg()[0]!.toFixed(1)} |`,
      );
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    const median =
      sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    console.log(
      `\n${dialect}, ${ROWS} posts, ${REPEAT} × ${DURATION} s per side: median ${median.toFixed(2)}, ` +
        `range ${sorted[0]!.toFixed(2)} to ${sorted.at(-1)!.toFixed(2)}`,
    );
  } finally {
    await ceiling.close();
    await target.close();
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
