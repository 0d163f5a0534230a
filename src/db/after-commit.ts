import type { Kysely, Transaction } from 'kysely';
import { retryOnDeadlock } from './retry.ts';

/**
 * Registers an effect outside the database (a call to a billing API, a mail) to run once the
 * transaction it was registered in has committed.
 */
export type AfterCommit = (effect: () => void | Promise<void>) => void;

/** Where an effect that failed after the commit is reported (the change itself stands). */
export interface AfterCommitLog {
  error(details: object, message: string): void;
}

/**
 * Run `work` in a transaction, again when the database picks it as a deadlock victim
 * (`retryOnDeadlock`), and then the effects it registered with `afterCommit`: those of the attempt
 * that committed, each once, in order. An attempt that is rolled back (a retried victim, or an
 * error) drops what it registered, so an effect never runs for a change that did not happen and
 * never twice for one that did. An effect that throws is logged: the change is committed already,
 * and the others still run.
 */
export async function transactionWithEffects<DB, T>(
  db: Kysely<DB>,
  log: AfterCommitLog,
  work: (trx: Transaction<DB>, afterCommit: AfterCommit) => Promise<T>,
): Promise<T> {
  const { value, effects } = await retryOnDeadlock(async () => {
    // A fresh list per attempt: a rolled-back attempt's effects are forgotten with it.
    const registered: (() => void | Promise<void>)[] = [];
    const result = await db
      .transaction()
      .execute((trx) => work(trx, (effect) => void registered.push(effect)));
    return { value: result, effects: registered };
  });
  for (const effect of effects) {
    try {
      await effect();
    } catch (error) {
      log.error({ err: { message: (error as Error).message } }, 'an after-commit effect failed');
    }
  }
  return value;
}
