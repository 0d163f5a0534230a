import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBlog } from '../../examples/blog/seed.ts';
import { startTestApp } from '../support/app.ts';
import { countRows, startBlogApp, type BlogApp } from '../support/api-app.ts';

describe('demo seed (SEED_DEMO)', () => {
  let t: BlogApp;
  beforeAll(async () => {
    t = await startBlogApp({ seedDemo: true, seed: seedBlog });
  });
  afterAll(async () => t?.close());

  it('seeds published sample posts with comments into an empty database', async () => {
    const response = await t.client().get('/api/v1/posts?derive=comments,author');
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(5);
    expect(response.body.data[0].comments).toHaveLength(2);
    expect(response.body.data[0].author.username).toBe('demo');
    expect(await countRows(t, 'posts')).toBe(5);
  });

  it('adds nothing when posts exist, and nothing when seedDemo is off', async () => {
    const again = await startTestApp({
      sharedDatabase: t.database,
      sharedMail: t.mail,
      api: t.server.config.api,
      migrations: t.server.config.migrations,
      plugins: t.server.config.plugins,
      seedDemo: true,
      seed: seedBlog,
    });
    await again.close();
    expect(await countRows(t, 'posts')).toBe(5);
    const off = await startBlogApp({ seedDemo: false, seed: seedBlog });
    try {
      expect(await countRows(off, 'posts')).toBe(0);
    } finally {
      await off.close();
    }
  });
});
