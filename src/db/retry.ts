/**
 * Transactions that touch the same rows from parallel requests can be chosen as a deadlock victim
 * (InnoDB, PostgreSQL) or fail serialization; the database has undone them, so running them again
 * is safe. Anything else is thrown at once.
 */
const RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', 'SQLITE_BUSY']);

export function isRetryableConflict(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && RETRYABLE.has(String((error as { code?: unknown }).code))
  );
}

/**
 * Runs `run` (a whole transaction) again, up to `attempts` times, when the database undid it as a
 * deadlock victim or a serialization failure.
 */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      // A short random pause, so the retried transactions do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
