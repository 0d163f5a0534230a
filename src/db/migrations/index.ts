import type { CitadelMigration } from './types.ts';
import { coreMigration } from './0000_core.ts';
import { exactKeysMigration } from './0001_exact_keys.ts';
import { rateLimitSweepMigration } from './0002_rate_limit_sweep.ts';
import { emailVerifiedAtMigration } from './0003_email_verified_at.ts';
import { exactFeatureKeysMigration } from './0900_exact_feature_keys.ts';
import { apiIdempotencyKeysMigration } from './0004_api_idempotency_keys.ts';
import { usersRoleDisabledMigration } from './0005_users_role_disabled.ts';
import { tokenOrganizationMigration } from './0006_token_organization.ts';
import { securityEventsMigration } from './0007_security_events.ts';
import { securityEventsUserForeignKeyMigration } from './0503_security_events_user_fk.ts';
import { liveChangesMigration } from './0009_live_changes.ts';
import { userLocaleMigration } from './0008_user_locale.ts';

/** The core's migrations. Plugins bring their own (`CitadelPlugin.migrations`); all run in name order. */
export const coreMigrations: CitadelMigration[] = [
  coreMigration,
  exactKeysMigration,
  rateLimitSweepMigration,
  exactFeatureKeysMigration,
  emailVerifiedAtMigration,
  apiIdempotencyKeysMigration,
  usersRoleDisabledMigration,
  tokenOrganizationMigration,
  securityEventsMigration,
  securityEventsUserForeignKeyMigration,
  userLocaleMigration,
  liveChangesMigration,
];
