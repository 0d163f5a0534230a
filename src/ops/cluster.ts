import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';

/**
 * A message a worker sends the primary to be passed on to every worker (itself included): how the
 * workers of one machine tell each other of committed live changes without Redis or PostgreSQL.
 */
export const RELAY_MESSAGE = 'citadel:relay';

function isRelayed(message: unknown): boolean {
  return (
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === RELAY_MESSAGE
  );
}

/** How long the primary waits for its workers to drain before it kills them (their own limit is 10 s). */
const WORKER_STOP_LIMIT_MS = 15_000;
/** A worker that dies sooner than this after starting counts towards the restart back-off. */
const QUICK_CRASH_MS = 5_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * WORKERS / --workers: a whole number; 0 means one per core. Undefined or empty means 1.
 * Returns undefined for anything else, so the caller can say what was wrong.
 */
export function parseWorkerCount(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return 1;
  if (!/^\d{1,3}$/.test(value)) return undefined;
  const count = Number(value);
  return count === 0 ? availableParallelism() : count;
}

/** One JSON line in pino's shape, so the primary's lines sit among its workers' in one log. */
function log(level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}): void {
  const levels = { info: 30, warn: 40, error: 50 };
  console.log(JSON.stringify({ level: levels[level], time: Date.now(), pid: process.pid, msg, ...extra }));
}

/**
 * The cluster's primary: starts `count` workers (each runs `citadel serve` and shares the port),
 * one after another so that migrations, the demo seed and a generated session secret happen once;
 * replaces a worker that dies (with a growing delay when it keeps dying at once); and on SIGTERM or
 * SIGINT lets every worker drain, then exits 0. Resolves true once all workers listen, false when
 * one could not start (it has said why on stderr; the others are stopped).
 */
export async function runPrimary(count: number): Promise<boolean> {
  let stopping = false;
  let quickCrashes = 0;

  const fork = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      const startedAt = Date.now();
      worker.on('message', (message: unknown) => {
        if (!isRelayed(message)) return;
        for (const other of Object.values(cluster.workers ?? {}))
          if (other?.isConnected()) other.send(message as object);
      });
      worker.once('listening', () => {
        log('info', `worker ${worker.id} listening`, { worker: worker.process.pid });
        resolve(worker);
      });
      worker.once('exit', (code, signal) => {
        reject(new Error(`worker exited before listening (code ${code ?? signal})`));
        if (stopping) return;
        const lived = Date.now() - startedAt;
        quickCrashes = lived < QUICK_CRASH_MS ? quickCrashes + 1 : 0;
        const delay = Math.min(MAX_RESTART_DELAY_MS, quickCrashes ? 250 * 2 ** quickCrashes : 0);
        log('warn', `worker ${worker.id} exited (${signal ?? `code ${code}`}); starting a replacement`, {
          worker: worker.process.pid,
          delayMs: delay,
        });
        setTimeout(() => {
          if (!stopping) fork().catch(() => undefined);
        }, delay);
      });
    });

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    log('info', `${signal}: stopping ${workers.length} workers`);
    const killer = setTimeout(() => {
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, WORKER_STOP_LIMIT_MS);
    let remaining = workers.length;
    const done = () => {
      clearTimeout(killer);
      process.exit(0);
    };
    if (remaining === 0) return done();
    for (const worker of workers) {
      worker.once('exit', () => {
        remaining -= 1;
        if (remaining === 0) done();
      });
      worker.process.kill('SIGTERM');
    }
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  for (let i = 0; i < count; i += 1) {
    try {
      await fork();
    } catch {
      // A worker that cannot start (bad configuration, unreachable database) will not start on
      // retry either: stop the others and fail like a single process would.
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      return false;
    }
  }
  log('info', `Citadel primary: ${count} workers listening`);
  return true;
}

export const isClusterPrimary = () => cluster.isPrimary;
