import { sql, type Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Database } from '../db/schema.ts';

/** Each dependency must answer within this budget for the service to be ready. */
export const READINESS_BUDGET_MS = 1000;

export type CheckResult = 'ok' | 'timeout' | 'error';

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** Resolve to the check's result, or to 'timeout' once the budget is spent (the check goes on unheard). */
async function withinBudget(check: () => Promise<unknown>, budgetMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), budgetMs);
  });
  const outcome = check().then(
    (): CheckResult => 'ok',
    (): CheckResult => 'error',
  );
  try {
    return await Promise.race([outcome, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ask the database (and Redis, when configured) one trivial question each, in parallel. The result
 * names each dependency and how it failed, never the driver's message (that could hold a host or
 * a user name).
 */
export interface ReadinessDependencies {
  db: Kysely<Database>;
  redis?: Redis;
}

export async function checkReadiness(
  deps: ReadinessDependencies,
  budgetMs = READINESS_BUDGET_MS,
): Promise<Readiness> {
  const checks: Record<string, Promise<CheckResult>> = {
    database: withinBudget(() => sql`select 1`.execute(deps.db), budgetMs),
  };
  const redis = deps.redis;
  if (redis) checks.redis = withinBudget(() => redis.ping(), budgetMs);
  const results: Record<string, CheckResult> = {};
  for (const [name, result] of Object.entries(checks)) results[name] = await result;
  return { ready: Object.values(results).every((r) => r === 'ok'), checks: results };
}
