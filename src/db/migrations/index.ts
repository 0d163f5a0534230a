import type { CitadelMigration } from './types.ts';
import { coreMigration } from './0000_core.ts';

/** Every migration of the project. Feature modules append theirs here. */
export const allMigrations: CitadelMigration[] = [coreMigration];
