import type { CitadelMigration } from './types.ts';

/** Rate-limit windows that ended are swept by `reset_at`: index it. */
export const rateLimitSweepMigration: CitadelMigration = {
  name: '0002_rate_limit_sweep',
  async up(db) {
    await db.schema.createIndex('rate_limits_reset_at').on('rate_limits').column('reset_at').execute();
  },
};
