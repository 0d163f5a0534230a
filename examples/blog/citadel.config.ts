import { sql } from 'kysely';
import { defaultPlugins, defineConfig, oauthProvider, organizations } from '../../src/index.ts';
import { acceptTermsAction } from './actions/accept-terms.ts';
import { blogApi } from './api.ts';
import { blogMigrations } from './migrations.ts';
import { blogPages } from './pages/plugin.ts';
import { seedBlog } from './seed.ts';

/**
 * The built-in plugins, the blog's pages and organizations: members write
 * projects, viewers read them.
 */
export const blogPlugins = [
  ...defaultPlugins(),
  blogPages(),
  organizations({
    roles: {
      member: ['projects:read', 'projects:create', 'projects:update'],
      viewer: ['projects:read'],
    },
  }),
  // Other applications and MCP clients sign in with Citadel; they may register themselves.
  oauthProvider({ dynamicRegistration: true }),
];

/**
 * The demo application `npm start` serves: the auth engine at the root and the blog's resource API
 * under /api, and the blog's pages (`/`, `/posts/{id}`, `/my/posts`).
 * Environment variables fill everything not set here.
 */
export default defineConfig({
  actions: [acceptTermsAction],
  plugins: blogPlugins,
  api: blogApi,
  migrations: blogMigrations,
  seed: seedBlog,
  // Account deletion (inside its transaction): the author's posts go, and their comments with them.
  async onUserDeleted(user, { db }) {
    await sql`DELETE FROM posts WHERE author_id = ${user.id}`.execute(db);
  },
});
