/**
 * Every combination of built-ins that `dependencies` allows starts, and every flow of the plugins
 * present answers without a 5xx and without an error-level log line: each built-in left out alone
 * (with what depends on it), the minimal set (`accounts` alone), no plugin at all, and the
 * organizations add-on over the minimal set. The core owns the security event log, so sign-out and
 * a failed sign-in write to it whatever is present.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILT_IN_PLUGIN_KEYS,
  defaultPlugins,
  type BuiltInPluginKey,
  type CitadelPlugin,
  type DefaultPluginOverrides,
} from '../../src/index.ts';
import { organizations } from '../../src/auth/organizations/plugin.ts';
import { oauthProvider } from '../../src/auth/oauth-provider/plugin.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { withDependents } from '../support/plugins.ts';
import { routeTable } from '../support/routes.ts';
import type { TestClient, TestResponse } from '../support/client.ts';

const without = (keys: readonly BuiltInPluginKey[]): CitadelPlugin[] =>
  defaultPlugins(Object.fromEntries(keys.map((k) => [k, false])) as DefaultPluginOverrides);

const MINIMAL_OFF = BUILT_IN_PLUGIN_KEYS.filter((key) => key !== 'accounts');

const COMBINATIONS: { name: string; plugins: () => CitadelPlugin[] }[] = [
  ...BUILT_IN_PLUGIN_KEYS.map((key) => {
    const left = withDependents(key);
    return { name: `without ${left.join(', ')}`, plugins: () => without(left) };
  }),
  { name: 'minimal (accounts only)', plugins: () => without(MINIMAL_OFF) },
  { name: 'minimal with organizations', plugins: () => [...without(MINIMAL_OFF), organizations()] },
  { name: 'every built-in with organizations', plugins: () => [...defaultPlugins(), organizations()] },
  {
    name: 'every built-in with the OAuth provider',
    plugins: () => [...defaultPlugins(), oauthProvider({ dynamicRegistration: true })],
  },
  {
    name: 'minimal with service tokens and the OAuth provider',
    plugins: () => [...without(MINIMAL_OFF.filter((key) => key !== 'serviceTokens')), oauthProvider()],
  },
  { name: 'no plugin at all', plugins: () => [] },
];

/** pino's level number of `error`: nothing at this level or above may be logged. */
const ERROR_LEVEL = 50;

/** Every `action` the answers carried (JSON envelopes): each must be declared. */
const actions = new Map<string, string>();
function noteAction(response: TestResponse, where: string): void {
  const action = (response.body as { action?: unknown } | undefined)?.action;
  if (typeof action === 'string' && !actions.has(action)) actions.set(action, where);
}

/** Every GET route of the app (path parameters filled), asked by `client`: never a 5xx. */
async function everyPage(t: TestApp, client: TestClient, who: string): Promise<void> {
  for (const [method, url] of routeTable(t.app)) {
    // Signing out is a flow of its own, below.
    if (method !== 'GET' || url === '/logout') continue;
    for (const kind of ['form', 'json'] as const) {
      const response = await client.get(url, kind);
      noteAction(response, `GET ${url}`);
      expect(response.status, `${who} GET ${url} (${kind}): ${response.text.slice(0, 300)}`).toBeLessThan(
        500,
      );
    }
  }
}

describe.each(COMBINATIONS)('$name', ({ plugins }) => {
  let t: TestApp;
  const lines: string[] = [];
  let ids: string[];
  beforeAll(async () => {
    actions.clear();
    const list = plugins();
    ids = list.map((plugin) => plugin.id);
    t = await startTestApp({
      plugins: list,
      logger: undefined,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  }, 60_000);
  afterAll(async () => t?.close());

  it(
    'starts, and every flow present answers without a 5xx or an error log line',
    { timeout: 120_000 },
    async () => {
      const has = (id: string) => ids.includes(id);
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      const anonymous = t.client();
      await everyPage(t, anonymous, 'anonymous');

      if (has('accounts')) {
        const browser = t.client();
        const email = `combo${Date.now()}@example.com`;
        const register = await browser.post('/register', {
          username: `combo${Date.now()}`,
          email,
          password: TEST_PASSWORD,
          password_confirm: TEST_PASSWORD,
        });
        expect(register.status, register.text).toBeLessThan(300);
        await browser.post('/logout', {});

        const client = t.client();
        const wrong = await client.post('/login', { email, password: 'not the password at all' });
        expect(wrong.status, wrong.text).toBe(401);
        const login = await client.post('/login', { email, password: TEST_PASSWORD });
        expect(login.status, login.text).toBe(200);
        const me = await client.get('/me');
        expect(me.status, me.text).toBe(200);
        expect(me.body.user.email).toBe(email);
        await everyPage(t, client, 'signed in');
        const logout = await client.post('/logout', {});
        expect(logout.status, logout.text).toBe(200);
        expect((await client.get('/me')).status).toBe(401);

        // The same through the form client (redirects, pages).
        const form = t.client();
        const formLogin = await form.post('/login', { email, password: TEST_PASSWORD }, 'form');
        expect(formLogin.status, formLogin.text).toBe(303);
        const formLogout = await form.post('/logout', {}, 'form');
        expect(formLogout.status, formLogout.text).toBe(303);

        const reset = await t.client().post('/forgot-password', { email });
        expect(reset.status, reset.text).toBe(200);
        const flows = { register, wrong, login, me, logout, reset };
        for (const [name, response] of Object.entries(flows)) noteAction(response, name);

        // Sign-out and the failed sign-in are security events of the core, plugin or not.
        const types = (
          await t.services.db
            .selectFrom('security_events')
            .select('type')
            .where('user_id', '=', me.body.user.id)
            .execute()
        ).map((row) => row.type);
        expect(types).toContain('sign_out');
        expect(types).toContain('sign_in_failed');
      } else {
        expect((await anonymous.get('/me')).status).toBeGreaterThanOrEqual(400);
      }

      // Every action an answer carried is declared: an endpoint's, the core's or a plugin's `errorCodes`.
      const declared = new Set([
        ...t.services.authEndpoints.map((endpoint) => endpoint.action),
        ...t.services.errorCodes,
      ]);
      const undeclared = [...actions].filter(([action]) => !declared.has(action));
      expect(undeclared).toEqual([]);

      // Anything still in flight (notices after commit) is logged before the lines are read.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The log is live (every request above is a line), and none of its lines is an error.
      expect(lines.length).toBeGreaterThan(10);
      const errors = lines.filter((line) => (JSON.parse(line) as { level: number }).level >= ERROR_LEVEL);
      expect(errors).toEqual([]);
    },
  );
});
