import type { Kysely } from 'kysely';
import type { Dialect } from '../url.ts';

/**
 * A schema change. Names sort in the order they run: feature modules use their own prefix range
 * (0000 core, 0100 pipeline and magic links, 0200 factors and sudo, 0300 tokens and social,
 * 0400 resource API demo) so modules can add migrations without renumbering each other's.
 */
export interface CitadelMigration {
  name: string;
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
  down?(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}
