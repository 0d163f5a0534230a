import { createApi } from '../../src/index.ts';
import { comments } from './resources/comments.ts';
import { myPosts } from './resources/my-posts.ts';
import { posts } from './resources/posts.ts';

/**
 * The blog API: posts in v1 and v2, comments and the caller's own posts (`my_posts`) in v1 only,
 * docs at /api/<v>/docs and /api/<v>/docs/ui.
 */
export const blogApi = createApi({
  apiName: 'Citadel demo blog API',
  apiBaseUrl: '/api',
  resources: [posts, comments, myPosts],
})
  .publish({ version: 'v1', docs: { route: 'docs', uiRoute: 'docs/ui' } })
  .publish({ version: 'v2', docs: { route: 'docs', uiRoute: 'docs/ui' } });
