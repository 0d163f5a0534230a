import { loadavg } from 'node:os';
import { load, type LoadOptions, type LoadResult } from './load.ts';
import type { Row } from './table.ts';

const log = (line: string) => console.error(`bench: ${line}`);

/** Several short rounds, engine and hand-written alternating, so load from elsewhere hits both alike. */
const ROUNDS = 4;

export function combine(results: LoadResult[]): LoadResult {
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    // The worst round's p99: a conservative figure.
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
    cpuMicros: results.reduce((sum, r) => sum + r.cpuMicros, 0),
  };
}

export async function pair(
  name: string,
  dialect: string,
  engineUrl: string,
  baselineUrl: string,
  options: LoadOptions,
  baselineOptions: LoadOptions = options,
): Promise<Row> {
  log(`${dialect}: ${name}`);
  // Warm-up, not reported: JIT, prepared statements and the database's caches, for both routes.
  for (const [url, opts] of [
    [engineUrl, options],
    [baselineUrl, baselineOptions],
  ] as const)
    await load(url, { ...opts, durationSeconds: 1, amount: opts.amount ? 1 : undefined });
  const inRounds = (opts: LoadOptions): LoadOptions => ({
    ...opts,
    durationSeconds: opts.durationSeconds / ROUNDS,
    ...(opts.amount ? { amount: Math.ceil(opts.amount / ROUNDS) } : {}),
  });
  const round = inRounds(options);
  const baselineRound = inRounds(baselineOptions);
  const engineRuns: LoadResult[] = [];
  const baselineRuns: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate who goes first as well.
    if (i % 2 === 0) {
      engineRuns.push(await load(engineUrl, round));
      baselineRuns.push(await load(baselineUrl, baselineRound));
    } else {
      baselineRuns.push(await load(baselineUrl, baselineRound));
      engineRuns.push(await load(engineUrl, round));
    }
  }
  const engine = combine(engineRuns);
  const baseline = combine(baselineRuns);
  for (const [who, result] of [
    ['engine', engine],
    ['baseline', baseline],
  ] as const) {
    if (result.failures > 0)
      throw new Error(
        `${dialect} ${name}: ${who} had ${result.failures} failed requests of ${result.requests}`,
      );
  }
  return { name, dialect, engine, baseline, load: loadavg()[0]! };
}
