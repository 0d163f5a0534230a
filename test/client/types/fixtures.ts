// The configurations the type tests compile against: the demo (built-in plugins, posts and
// comments), one without `plugins` (the built-ins at run time), one with a built-in left out and
// one with a plugin of its own beside them.
import { Type } from '@sinclair/typebox';
import {
  defaultPlugins,
  defineConfig,
  defineEndpoint,
  definePlugin,
  organizations,
} from '../../../src/index.ts';
import { tenantApi } from '../../auth/organizations/fixture.ts';
import { Envelope } from '../../../src/auth/core/envelope-schema.ts';

import { blogApi } from '../../../examples/blog/api.ts';

export { default as demoConfig } from '../../../examples/blog/citadel.config.ts';

/** A plugin with a path parameter, a body and a second method on one path. */
export const notesPlugin = definePlugin({
  id: 'notes',
  endpoints: [
    defineEndpoint({
      method: 'GET',
      path: '/notes',
      action: 'notes.index',
      auth: 'session',
      query: Type.Object({ tag: Type.Optional(Type.String()) }),
      responses: { 200: Envelope({ data: Type.Object({ notes: Type.Array(Type.String()) }) }) },
      async handler() {
        return { status: 'success', data: { notes: [] } };
      },
    }),
    defineEndpoint({
      method: 'POST',
      path: '/notes/:id/pin',
      action: 'notes.pin',
      auth: 'session',
      params: Type.Object({ id: Type.String() }),
      body: Type.Object({ on: Type.Boolean() }),
      responses: { 200: Envelope({ data: Type.Object({ pinned: Type.Boolean() }) }) },
      async handler({ body }) {
        return { status: 'success', data: { pinned: body.on } };
      },
    }),
  ],
});

/** The built-in plugins alone (the demo adds its blog's pages). */
export const builtInConfig = defineConfig({ plugins: defaultPlugins() });

/** No `plugins`: the server registers the built-ins, and the client types them. */
export const noPluginsConfig = defineConfig({ api: blogApi });
export const emptyConfig = defineConfig({});

/** The built-ins but the magic link. */
export const withoutMagicLinkConfig = defineConfig({ plugins: defaultPlugins({ magicLink: false }) });

/** The built-ins but the account center (and the administration, which needs it). */
export const withoutAccountCenterConfig = defineConfig({
  plugins: defaultPlugins({ accountCenter: false, admin: false }),
});

export const pluginConfig = defineConfig({
  plugins: [...defaultPlugins({ magicLink: false }), notesPlugin],
});

/** Tenant-scoped projects with tenant-scoped tasks as nested children (test/auth/organizations). */
export const tenantConfig = defineConfig({
  plugins: [...defaultPlugins(), organizations()],
  api: tenantApi,
});
