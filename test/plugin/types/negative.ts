// Each line after a `@ts-expect-error` must be a type error: compiled by tsc in
// test/plugin/factory-types.test.ts (which also checks the errors are there without the comments).
import { defaultPlugins, definePlugin, magicLink, sudo, tokens } from '../../../src/index.ts';

// @ts-expect-error an option key magicLink() does not have
magicLink({ ttl: 600 });
// @ts-expect-error an option of the wrong type
magicLink({ ttlSeconds: '600' });
// @ts-expect-error an option of the wrong type
sudo({ maxFailures: true });
// @ts-expect-error a factory without options takes none
tokens({ anything: 1 });
// @ts-expect-error no built-in is called magicLinks
defaultPlugins({ magicLinks: false });
// @ts-expect-error an option key sudo() does not have, through defaultPlugins
defaultPlugins({ sudo: { ttl: 60 } });
// @ts-expect-error an option of the wrong type, through defaultPlugins
defaultPlugins({ sudo: { ttlSeconds: '60' } });
// @ts-expect-error a plugin is named by its `id` (`name` was the field of earlier versions)
definePlugin({ name: 'old' });
