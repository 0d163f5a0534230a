import type { CitadelMigration } from './types.ts';
import { coreMigration } from './0000_core.ts';
import { exactKeysMigration } from './0001_exact_keys.ts';
import { rateLimitSweepMigration } from './0002_rate_limit_sweep.ts';
import { socialMigration } from '../../auth/social/migration.ts';
import { factorsMigration } from '../../auth/factors/migration.ts';
import { magicLinkMigration } from '../../auth/magic-link/migration.ts';
import { pipelineClaimsMigration } from '../../auth/pipeline/claims.ts';
import { accountCenterMigration } from '../../auth/account-center/migration.ts';
import { exactFeatureKeysMigration } from './0900_exact_feature_keys.ts';

/** Every migration of the project. Feature modules append theirs here. */
export const allMigrations: CitadelMigration[] = [
  coreMigration,
  exactKeysMigration,
  rateLimitSweepMigration,
  magicLinkMigration,
  pipelineClaimsMigration,
  factorsMigration,
  socialMigration,
  accountCenterMigration,
  exactFeatureKeysMigration,
];
