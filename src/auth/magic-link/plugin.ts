import { definePlugin } from '../../plugin.ts';
import { magicLinkEndpoints } from './routes.ts';
import { magicLinkMigration } from './migrations.ts';

/** Sign-in by an emailed single-use link. */
export const magicLinkPlugin = definePlugin({
  name: 'magic-link',
  migrations: [magicLinkMigration],
  endpoints: magicLinkEndpoints,
});
