// Type test (compiled by test/client/types.test.ts, and by `npm run typecheck`): the fields a
// plugin's after hooks declare (`schema`) are optional fields of the answers of the endpoints the
// hook's match selects, when the match is a literal; a RegExp matcher adds nothing. Each line under
// a `@ts-expect-error` must be an error (an unused directive fails the compile).
import { Type } from '@sinclair/typebox';
import { createClient } from '../../../src/client/index.ts';
import { defaultPlugins, defineConfig, definePlugin } from '../../../src/index.ts';

type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(value: T): T {
  return value;
}

export const planPlugin = definePlugin({
  id: 'plan',
  hooks: {
    after: [
      {
        match: { action: 'me' },
        schema: { fields: { plan: Type.String() } },
        handler: () => ({ fields: { plan: 'pro' } }),
      },
      {
        // A second hook on `me`, adding to `data` only (which `me` has not): `plan` stays.
        match: { action: 'me', method: 'GET' },
        schema: { data: { extra: Type.String() } },
        handler: () => undefined,
      },
      {
        match: { action: ['tokens.index', 'tokens.create'] },
        schema: { fields: { quota: Type.Integer() } },
        handler: () => ({ fields: { quota: 10 } }),
      },
      {
        match: { path: '/sessions', method: 'GET' },
        schema: { data: { seen: Type.Boolean() } },
        handler: () => ({ data: { seen: true } }),
      },
      {
        match: { action: /^account\./ },
        schema: { fields: { traced: Type.Boolean() } },
        handler: () => ({ fields: { traced: true } }),
      },
    ],
  },
});

export const hookConfig = defineConfig({ plugins: [...defaultPlugins(), planPlugin] });

export async function hookFields(): Promise<void> {
  const client = createClient<typeof hookConfig>({ baseUrl: 'http://localhost:3000' });

  const me = await client.auth.me();
  if (me.data) {
    expectType<Exact<typeof me.data.plan, string | undefined>>(true);
    expectType<Exact<typeof me.data.user.id, number>>(true);
    // @ts-expect-error the hook's field is optional: it may be absent
    const plan: string = me.data.plan;
    void plan;
  }
  const tokens = await client.auth.tokens.list();
  if (tokens.data) expectType<Exact<typeof tokens.data.quota, number | undefined>>(true);
  const sessions = await client.auth.sessions.list();
  if (sessions.data) expectType<Exact<typeof sessions.data.data.seen, boolean | undefined>>(true);
  const account = await client.auth.account.get();
  // @ts-expect-error a hook matching by RegExp adds nothing to the types
  if (account.data) void account.data.traced;
  // @ts-expect-error a hook on one action adds nothing to another's answer
  if (tokens.data) void tokens.data.plan;
}
