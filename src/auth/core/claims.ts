import type { CitadelServices } from './services.ts';
import type { CitadelMigration } from '../../db/migrations/types.ts';
import { TIMESTAMP } from '../../db/columns.ts';
import { isoAfter } from '../../core/clock.ts';

/**
 * Once-only claims ("this step was passed", "this resend was sent") that concurrent requests and
 * processes agree on: a plain INSERT into a primary key, which exactly one of them can win on every
 * dialect. (Session copies are last-writer-wins, and a counter's read-back after an upsert can see
 * the other request's increment too.)
 */
export interface PipelineClaimsTable {
  key: string;
  expires_at: string;
}

export interface PipelineClaimTables {
  pipeline_claims: PipelineClaimsTable;
}

declare module '../../db/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface Database extends PipelineClaimTables {}
}

/** The migration of the `pipeline_claims` table that `claimOnce` writes to. */
export const pipelineClaimsMigration: CitadelMigration = {
  name: '0101_pipeline_claims',
  async up(db) {
    await db.schema
      .createTable('pipeline_claims')
      .addColumn('key', 'varchar(191)', (c) => c.primaryKey())
      .addColumn('expires_at', TIMESTAMP, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('pipeline_claims_expires_at')
      .on('pipeline_claims')
      .column('expires_at')
      .execute();
  },
  async down(db) {
    await db.schema.dropTable('pipeline_claims').execute();
  },
};

/** True for the first caller with this key (within `ttlSeconds`), false for every other. */
export async function claimOnce(
  services: CitadelServices,
  key: string,
  ttlSeconds: number,
): Promise<boolean> {
  const { db, clock } = services;
  const expiresAt = isoAfter(clock, ttlSeconds);
  try {
    await db.insertInto('pipeline_claims').values({ key, expires_at: expiresAt }).execute();
    return true;
  } catch (error) {
    // A duplicate key: someone else holds the claim. Anything else is a real failure.
    const existing = await db
      .selectFrom('pipeline_claims')
      .select('key')
      .where('key', '=', key)
      .executeTakeFirst();
    if (existing) return false;
    throw error;
  }
}

/** Sign-ins between two sweeps of ended claims (a sweep per sign-in was a statement per sign-in). */
export const SWEEP_CLAIMS_EVERY = 100;
const signInsSinceSweep = new WeakMap<CitadelServices, number>();

/** Drop claims whose contexts can no longer exist, on every SWEEP_CLAIMS_EVERY-th call per server. */
export async function sweepClaims(services: CitadelServices): Promise<void> {
  const calls = (signInsSinceSweep.get(services) ?? 0) + 1;
  signInsSinceSweep.set(services, calls % SWEEP_CLAIMS_EVERY);
  if (calls < SWEEP_CLAIMS_EVERY) return;
  await services.db
    .deleteFrom('pipeline_claims')
    .where('expires_at', '<=', services.clock.now().toISOString())
    .execute();
}
