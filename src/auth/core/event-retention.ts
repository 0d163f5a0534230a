import type { CitadelServices } from './services.ts';
import { sweepSecurityEvents } from './security-events.ts';

const SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000;

/**
 * The core's retention sweep: events older than `eventRetentionDays` go at start and every 6 hours
 * after (each process; the delete is idempotent). Returns what stops it, once a sweep under way
 * has finished (so it ends before the database closes).
 */
export function startEventRetention(services: CitadelServices): () => Promise<void> {
  const days = services.config.eventRetentionDays;
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    running = sweepSecurityEvents(services.db, services.clock, days).catch((error: unknown) =>
      services.log.warn({ err: { message: (error as Error).message } }, 'event sweep failed'),
    );
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
