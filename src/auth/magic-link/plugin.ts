import { definePlugin } from '../../plugin.ts';
import { magicLinkRoutes } from './routes.ts';
import { magicLinkMigration } from './migrations.ts';

/** Sign-in by an emailed single-use link. */
export const magicLinkPlugin = definePlugin({
  name: 'magic-link',
  migrations: [magicLinkMigration],
  routes: magicLinkRoutes,
});
