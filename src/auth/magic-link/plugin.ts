import { definePlugin, givenOptions } from '../../plugin-api.ts';
import { magicLinkEndpoints } from './routes.ts';
import { magicLinkMigration } from './migrations.ts';
import { magicLinkMessages } from './messages/index.ts';
import {
  MAGIC_LINK_ID,
  magicLinkDefaults,
  resolveMagicLinkOptions,
  type MagicLinkOptions,
} from './options.ts';

/** Sign-in by an emailed single-use link: `magicLink({ ttlSeconds: 600 })`. */
export function magicLink(options: Partial<MagicLinkOptions> = {}) {
  return definePlugin({
    id: MAGIC_LINK_ID,
    options: { ...magicLinkDefaults, ...givenOptions(options) },
    resolveOptions: (config) => resolveMagicLinkOptions(options, config),
    migrations: [magicLinkMigration],
    tables: ['magic_link_tokens'],
    endpoints: magicLinkEndpoints,
    messages: magicLinkMessages,
    // A link that signs in with one more step to go (a pipeline action).
    errorCodes: ['magic_link.action_required'],
  });
}
