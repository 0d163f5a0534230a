/**
 * `npm run bench:live`: live streams (`GET /api/v1/posts/live`) on one process of the demo server.
 *
 * - Write throughput: BENCH_WRITERS writers create published posts through the API for
 *   BENCH_DURATION seconds, first without subscribers, then with BENCH_SUBSCRIBERS (1,000)
 *   anonymous subscribers of the posts' live route, then without again (the two "without" runs
 *   averaged, so that a change of the machine's load hits both sides alike). Aim: with / without
 *   at least 0.9.
 * - Delivery latency, from a post's `created_at` (set inside the writing transaction, just before
 *   it commits) to the last of the subscribers receiving its `created` event, p50 and p99 over the
 *   posts: under that write load, and paced (one write every BENCH_PACE_MS, the latency without a
 *   queue).
 * - CPU per delivered event: the server process's CPU time (user + system) during the run with
 *   subscribers, less what its writes cost without them, divided by the events delivered.
 *
 * The server runs in this process; writers and subscribers run in one process each
 * (bench/live-clients.ts), so the CPU time measured here is the server's. The table goes to stdout
 * and to bench/results/<date>-live-<time>.md with the load and the commit. Environment: BENCH_DIALECT (sqlite), BENCH_ROWS
 * (posts already in the table, default 1000), BENCH_SUBSCRIBERS (1000), BENCH_WRITERS (4),
 * BENCH_DURATION (seconds per run, 8), BENCH_PACED (writes, 40), BENCH_PACE_MS (100);
 * BENCH_PROFILE=<file> writes the server's CPU profile of the run with subscribers there, and of
 * the first run without them next to it (`-without.cpuprofile`), and no result file.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { TestDialect } from '../test/support/databases.ts';
import { demoOptions, startBenchTarget } from './setup.ts';

const DIALECT = (process.env.BENCH_DIALECT ?? 'sqlite') as TestDialect;
const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const PACED = Number(process.env.BENCH_PACED ?? 40);
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 100);
/** A file to write the server's CPU profile of the run with subscribers to (`.cpuprofile`). */
const PROFILE = process.env.BENCH_PROFILE;

const log = (line: string) => console.error(`bench: ${line}`);

interface Report {
  posts: number;
  delivered: number;
  toFirst: number[];
  toLast: number[];
  counts: number[];
  /** Streams the server had ended by then. */
  ended: number;
}

/** The client process and one request/answer at a time over IPC. */
function clients(): { child: ChildProcess; ask: <T>(command: object) => Promise<T> } {
  const child = fork(join(import.meta.dirname, 'live-clients.ts'), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(command: object) =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (message: { ok: boolean; result?: T; error?: string }) =>
        message.ok ? resolve(message.result as T) : reject(new Error(message.error)),
      );
      child.send(command);
    });
  return { child, ask };
}

const percentile = (values: number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function main(): Promise<void> {
  const options = await demoOptions();
  const posts = options.api?.resources.find((resource) => resource.name === 'posts');
  if (posts?.live !== true) throw new Error('the demo posts are not declared live: true');
  const target = await startBenchTarget(DIALECT, options, ROWS, log);
  // Writers and subscribers in processes of their own: reading the streams must not hold up the
  // writers' event loop (that would lower the throughput with subscribers for the client's sake).
  const writer = clients();
  const reader = clients();
  const ask = writer.ask;
  try {
    const write = { url: target.engineBase, token: target.token };
    const clientsCpu = async () => {
      const [w, r] = await Promise.all([
        writer.ask<NodeJS.CpuUsage>({ type: 'cpu' }),
        reader.ask<NodeJS.CpuUsage>({ type: 'cpu' }),
      ]);
      return { writers: w.user + w.system, readers: r.user + r.system };
    };
    const run = async (label: string) => {
      const cpu = cpuMicros();
      const split = process.cpuUsage();
      const others = await clientsCpu();
      const result = await ask<{ writes: number; seconds: number }>({
        type: 'write',
        ...write,
        seconds: DURATION,
        concurrency: WRITERS,
      });
      const used = cpuMicros() - cpu;
      const { user, system } = process.cpuUsage(split);
      const othersAfter = await clientsCpu();
      const share = (micros: number) => `${((micros / 1e6 / result.seconds) * 100).toFixed(0)}%`;
      log(
        `${label}: ${result.writes} writes in ${result.seconds.toFixed(1)} s; CPU of a core: server ${share(user)} user + ${share(system)} system, writers ${share(othersAfter.writers - others.writers)}, subscribers ${share(othersAfter.readers - others.readers)}`,
      );
      return { ...result, cpu: used, rate: result.writes / result.seconds };
    };

    log(`warm-up (${DIALECT}, ${ROWS} posts)`);
    await ask({ type: 'write', ...write, seconds: 2, concurrency: WRITERS });
    const baseline = PROFILE ? await startProfile() : null;
    const before = await run('without subscribers');
    if (baseline && PROFILE)
      await stopProfile(baseline, PROFILE.replace(/(\.cpuprofile)?$/, '-without.cpuprofile'));

    log(`opening ${SUBSCRIBERS} subscribers`);
    const opened = await reader.ask<{ subscribers: number }>({
      type: 'subscribe',
      url: `${target.engineBase}/live?fields=created_at`,
      count: SUBSCRIBERS,
    });
    log(`${opened.subscribers} subscribers in the feed`);
    await ask({ type: 'paced', ...write, count: PACED, intervalMs: PACE_MS });
    const pacedReport = await reader.ask<Report>({
      type: 'collect',
      expected: PACED * SUBSCRIBERS,
      quietMs: 5000,
    });
    const profiler = PROFILE ? await startProfile() : null;
    const loadedCpu = cpuMicros();
    const withSubscribers = await run('with subscribers');
    const loadedReport = await reader.ask<Report>({
      type: 'collect',
      expected: withSubscribers.writes * SUBSCRIBERS,
      quietMs: 10_000,
    });
    if (profiler && PROFILE) await stopProfile(profiler, PROFILE);
    // The CPU until the last delivery of those writes, not only while they were written.
    const deliveryCpu = cpuMicros() - loadedCpu;
    await reader.ask({ type: 'close' });
    // Let the server see the closed streams before the last run.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await run('without subscribers, again');

    const without = {
      rate: (before.writes + after.writes) / (before.seconds + after.seconds),
      cpuPerWrite: (before.cpu + after.cpu) / (before.writes + after.writes),
    };
    const deliveryMicros = deliveryCpu - withSubscribers.writes * without.cpuPerWrite;
    const lines = [
      `Live streams, ${DIALECT}, one process: ${SUBSCRIBERS} subscribers, ${WRITERS} writers, ${DURATION} s per run; ${cpus().length} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      '',
      '| Measure | Value |',
      '|---|---|',
      `| writes/s without subscribers (mean of the runs before and after) | ${without.rate.toFixed(1)} (${before.rate.toFixed(1)}, ${after.rate.toFixed(1)}) |`,
      `| writes/s with ${SUBSCRIBERS} subscribers | ${withSubscribers.rate.toFixed(1)} |`,
      `| ratio with / without (aim >= 0.9) | ${(withSubscribers.rate / without.rate).toFixed(2)} |`,
      `| events delivered under load / expected (posts seen: ${loadedReport.posts} of ${withSubscribers.writes}; fewest subscribers reached by one post: ${Math.min(...loadedReport.counts)}; streams ended by the server: ${loadedReport.ended}) | ${loadedReport.delivered} / ${withSubscribers.writes * SUBSCRIBERS} |`,
      `| latency to the last subscriber under load, p50 / p99 | ${percentile(loadedReport.toLast, 50)} ms / ${percentile(loadedReport.toLast, 99)} ms |`,
      `| latency to the first subscriber under load, p50 / p99 | ${percentile(loadedReport.toFirst, 50)} ms / ${percentile(loadedReport.toFirst, 99)} ms |`,
      `| paced (${PACED} writes, one per ${PACE_MS} ms): events delivered / expected | ${pacedReport.delivered} / ${PACED * SUBSCRIBERS} |`,
      `| paced: latency to the last subscriber, p50 / p99 | ${percentile(pacedReport.toLast, 50)} ms / ${percentile(pacedReport.toLast, 99)} ms |`,
      `| server CPU per delivered event (less the writes' own cost) | ${(deliveryMicros / Math.max(1, loadedReport.delivered)).toFixed(2)} µs |`,
      `| server CPU per write without / with subscribers | ${(without.cpuPerWrite / 1000).toFixed(2)} ms / ${(deliveryCpu / withSubscribers.writes / 1000).toFixed(2)} ms |`,
    ];
    console.log(lines.join('\n'));
    // A profiled run's figures carry the profiler's cost: not kept as a result.
    if (!PROFILE) log(`written to ${await writeResult(lines)}`);
  } finally {
    writer.child.disconnect();
    reader.child.disconnect();
    await target.close();
  }
}

/** The server's CPU profiler (this process), started. */
async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(file, JSON.stringify(profile));
  session.disconnect();
  log(`CPU profile written to ${file}`);
}

/** The run's table as `bench/results/<date>-live-<time>.md` (the results folder keeps every run). */
async function writeResult(lines: string[]): Promise<string> {
  const now = new Date().toISOString();
  const name = `${now.slice(0, 10)}-live-${now.slice(11, 16).replace(':', '')}Z.md`;
  const file = join(import.meta.dirname, 'results', name);
  const environment = ['BENCH_DIALECT', 'BENCH_ROWS', 'BENCH_SUBSCRIBERS', 'BENCH_WRITERS', 'BENCH_DURATION']
    .filter((variable) => process.env[variable] !== undefined)
    .map((variable) => `${variable}=${process.env[variable]}`)
    .join(' ');
  const text = [
    `# Live streams: \`npm run bench:live\`, ${now.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Command: \`${environment ? `${environment} ` : ''}npm run bench:live\` (bench/live.ts), commit ${commit()}.`,
    '',
    ...lines,
    '',
  ].join('\n');
  await writeFile(file, text);
  return file;
}

/** The commit measured, marked when the live code or this benchmark had uncommitted changes. */
function commit(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const changed = git(
      'status',
      '--porcelain',
      '--',
      'src/api/live',
      'bench/live.ts',
      'bench/live-clients.ts',
    );
    return changed ? `${head} with uncommitted changes to the live code` : head;
  } catch {
    return 'unknown';
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
