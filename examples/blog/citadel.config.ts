import { sql } from 'kysely';
import { defaultPlugins, defineConfig } from '../../src/index.ts';
import { acceptTermsAction } from './actions/accept-terms.ts';
import { blogApi } from './api.ts';
import { blogMigrations } from './migrations.ts';
import { blogPages } from './pages/plugin.ts';
import { seedBlog } from './seed.ts';

/**
 * The demo application `npm start` serves: the auth engine at the root and the blog's resource API
 * under /api (contract section 8), and the blog's pages (`/`, `/posts/{id}`, `/my/posts`).
 * Environment variables fill everything not set here.
 */
export default defineConfig({
  actions: [acceptTermsAction],
  api: blogApi,
  plugins: [...defaultPlugins(), blogPages()],
  migrations: blogMigrations,
  seed: seedBlog,
  // Account deletion (inside its transaction): the author's posts go, and their comments with them.
  async onUserDeleted(user, { db }) {
    await sql`DELETE FROM posts WHERE author_id = ${user.id}`.execute(db);
  },
});
