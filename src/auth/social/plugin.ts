import { definePlugin } from '../../plugin.ts';
import { socialEndpoints } from './routes.ts';
import { socialMigration } from './migrations.ts';

/** Social sign-in through OAuth 2.0 / OpenID Connect providers. */
export const socialPlugin = definePlugin({
  name: 'social',
  migrations: [socialMigration],
  endpoints: socialEndpoints,
});
