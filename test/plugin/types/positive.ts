// A clean program: compiled by tsc in test/plugin/factory-types.test.ts, it must have no error.
// It pins the literal types a typed client reads from `typeof config`.
import { Type, type Static } from '@sinclair/typebox';
import {
  defaultPlugins,
  defineEndpoint,
  Envelope,
  defineConfig,
  definePlugin,
  magicLink,
  sudo,
  type CitadelPlugin,
  type DefaultPluginOverrides,
  type MagicLinkOptions,
} from '../../../src/index.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

// A factory keeps its id, its options' type and its endpoints' paths, methods and schemas.
const link = magicLink({ ttlSeconds: 600 });
assertType<Equal<typeof link.id, 'magic-link'>>();
const ttl: number = link.options.ttlSeconds;
type LinkEndpoint = (typeof link.endpoints)[number];
assertType<Equal<LinkEndpoint['path'], '/magic-link' | '/magic-link/sent' | '/magic-link/verify/:token'>>();
assertType<Equal<LinkEndpoint['method'], 'GET' | 'POST'>>();
type Send = Extract<LinkEndpoint, { method: 'POST' }>;
assertType<Equal<Static<NonNullable<Send['body']>>, { email: string }>>();
assertType<Equal<(typeof link.endpoints)['length'], 4>>();

// defaultPlugins() is a tuple: a left-out built-in is gone from its type, the others keep theirs.
const all = defaultPlugins();
assertType<Equal<(typeof all)['length'], 11>>();
const some = defaultPlugins({ magicLink: false, social: false, sudo: { ttlSeconds: 60 } });
assertType<Equal<(typeof some)['length'], 9>>();
assertType<
  Equal<
    (typeof some)[number]['id'],
    | 'accounts'
    | 'tokens'
    | 'password'
    | 'pipeline'
    | 'factors'
    | 'sudo'
    | 'account-center'
    | 'service-tokens'
    | 'admin'
  >
>();
type SudoPlugin = Extract<(typeof some)[number], { id: 'sudo' }>;
assertType<Equal<SudoPlugin['options']['ttlSeconds'], number>>();

// An application's own plugin with typed options, beside the built-ins in one config.
interface NotesOptions {
  maxNotes: number;
}
const notes = (options: Partial<NotesOptions> = {}) =>
  definePlugin({ id: 'notes', options: { maxNotes: options.maxNotes ?? 10 } satisfies NotesOptions });
const overrides: DefaultPluginOverrides = { magicLink: { ttlSeconds: 300 }, accountCenter: false };
const config = defineConfig({
  env: {},
  plugins: [...defaultPlugins({ magicLink: false }), notes({ maxNotes: 5 }), ...defaultPlugins(overrides)],
});
const asPlugin: CitadelPlugin = sudo();

// The factory of docs/architecture.md ("Writing a plugin"), as written there.
interface GreeterOptions {
  /** The greeting's first word. */
  word: string;
}
function greeter(options: Partial<GreeterOptions> = {}) {
  const { word } = { word: 'Hello', ...options } satisfies GreeterOptions;
  const greet = defineEndpoint({
    method: 'GET',
    path: '/greet',
    action: 'greeter.greet',
    auth: 'session',
    responses: { 200: Envelope({ data: Type.Object({ text: Type.String() }) }) },
    async handler({ caller }) {
      return { status: 'success', data: { text: `${word}, ${caller!.user.username}` } };
    },
  });
  return definePlugin({ id: 'greeter', options: { word }, endpoints: [greet] as const });
}
const greeting = greeter({ word: 'Welcome' });
assertType<Equal<(typeof greeting.endpoints)[0]['path'], '/greet'>>();
assertType<Equal<typeof greeting.options.word, string>>();
const withGreeter = defineConfig({ plugins: [...defaultPlugins({ social: false }), greeting] });
const options: Partial<MagicLinkOptions> = {};
export { all, asPlugin, config, options, some, ttl, withGreeter };
