import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, trustedCss } from '../../src/core/html.ts';
import { eventDetails, eventLabel } from '../../src/auth/account-center/pages.ts';
import { securityEventTypes } from '../../src/auth/core/security-events.ts';
import { defaultPlugins } from '../../src/auth/index.ts';
import { organizations } from '../../src/auth/organizations/plugin.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';

/** Issue 25 "First impression": what a form client gets on the pages a newcomer sees first. */

/** The page's own content (not the <title>, not the header). */
function main(text: string): string {
  return /<main>([\s\S]*)<\/main>/.exec(text)?.[1] ?? '';
}

describe('the layout stylesheet and the escaper', () => {
  it('the built-in CSS is served as written: a quoted font name is not turned into &quot;', async () => {
    const t = await startTestApp();
    try {
      const page = await t.client().get('/login', 'form');
      expect(page.text).toContain('font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif');
      expect(page.text).toContain('content:""');
      const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1]!;
      expect(style).not.toContain('&quot;');
      expect(style).not.toContain('&#39;');
    } finally {
      await t.close();
    }
  });

  it('user text is still escaped, quotes included, in content and in attributes', async () => {
    const text = `He said "hi" & 'bye' <script>alert(1)</script>`;
    expect(String(html`<p title="${text}">${text}</p>`)).toBe(
      '<p title="He said &quot;hi&quot; &amp; &#39;bye&#39; &lt;script&gt;alert(1)&lt;/script&gt;">' +
        'He said &quot;hi&quot; &amp; &#39;bye&#39; &lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    const t = await startTestApp();
    try {
      // What a visitor typed comes back into the form escaped.
      const page = await t.client().post('/login', { email: '"><b>x</b>', password: 'wrong' }, 'form');
      expect(page.status).toBe(401);
      expect(page.text).toContain('value="&quot;&gt;&lt;b&gt;x&lt;/b&gt;"');
      expect(page.text).not.toContain('"><b>x</b>');
    } finally {
      await t.close();
    }
  });

  it('trusted CSS cannot end its <style> element', () => {
    expect(() => trustedCss('p{color:red}</style><script>alert(1)</script>')).toThrow(/<\//);
    expect(String(trustedCss('a::before{content:"\\2192"}'))).toBe('a::before{content:"\\2192"}');
  });
});

describe('page details', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ loginActions: [] });
  });
  afterAll(async () => t?.close());

  const count = (text: string, needle: string) => text.split(needle).length - 1;

  it('the 404 page says "Not found" once', async () => {
    const page = await t.client().get('/no-such-page', 'form');
    expect(page.status).toBe(404);
    expect(count(main(page.text), 'Not found')).toBe(1);
    expect(page.text).not.toContain('class="flash error"');
  });

  it('an error page adds only what its title does not say', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    // A session revoke of someone else's (or no) session: 404 with its own message.
    const page = await client.post('/sessions/revoke/not-a-session', {}, 'form');
    expect(page.status).toBe(404);
    expect(main(page.text)).toContain('<h1>Not found</h1>');
    expect(count(main(page.text), 'Not found')).toBe(1);
  });

  it('the 500 page says "Something went wrong" once, under its own title', async () => {
    const crashing = await startTestApp({
      routes: (app) => {
        app.get('/test/crash', { config: { action: 'test.crash' } }, async () => {
          throw new Error('boom');
        });
      },
    });
    try {
      const page = await crashing.client().get('/test/crash', 'form');
      expect(page.status).toBe(500);
      expect(main(page.text)).toContain('<h1>Server error</h1>');
      expect(count(main(page.text), 'Something went wrong')).toBe(1);
    } finally {
      await crashing.close();
    }
  });

  it('an unusable reset link shows the error and a way to a new link, no form', async () => {
    const page = await t.client().get('/reset-password?token=not-a-real-token', 'form');
    expect(page.status).toBe(422);
    const content = main(page.text);
    expect(content).toContain('This reset link is invalid or has expired.');
    expect(content).toContain('href="/forgot-password"');
    expect(content).not.toContain('<form');
    expect(content).not.toContain('name="password"');
    // Nothing for the page script to focus (it would draw a box around the text).
    expect(content).not.toContain('role="alert"');
    expect(content).not.toContain('aria-invalid');
  });

  it('"Check your email" says it once', async () => {
    const user = await t.createUser();
    const client = t.client();
    const sent = await client.post('/magic-link', { email: user.email }, 'form');
    expect(sent.status).toBe(303);
    expect(sent.location).toBe('/magic-link/sent');
    const page = await client.get('/magic-link/sent', 'form');
    expect(main(page.text)).toContain('we sent it a sign-in link');
    expect(page.text).not.toContain('a sign-in link is on its way');
    expect(page.text).not.toContain('class="flash');
  });

  it('the sudo page does not put a "Password" label right under a "Password" heading', async () => {
    const user = await t.createUser();
    const client = await t.signIn(user);
    const page = await client.get('/sudo?next=%2Ftokens', 'form');
    const section = /<section id="sudo-password">([\s\S]*?)<\/section>/.exec(page.text)![1]!;
    expect(section).toContain('<h2>Password</h2>');
    // Still labelled for screen readers, not shown twice.
    expect(section).toMatch(/<label for="field-proof" class="visually-hidden"\s*>Password<\/label/);
  });

  it('the events page labels a registration "Account created" and shows no raw keys', async () => {
    const client = t.client();
    const registered = await client.post(
      '/register',
      {
        username: 'New Comer',
        email: 'newcomer@example.com',
        password: TEST_PASSWORD,
        password_confirm: TEST_PASSWORD,
      },
      'form',
    );
    expect(registered.status).toBe(303);
    const page = await client.get('/account/events', 'form');
    expect(page.status).toBe(200);
    const list = main(page.text);
    expect(list).toContain('<strong>Account created</strong>');
    expect(list).not.toContain('<strong>Signed in</strong>');
    expect(list).not.toMatch(/method:|remembered:|new device:|>sign_in/);
  });
});

describe('security event wording', () => {
  // Labels come from the declarations of the core and of the plugins that record each type.
  const labels = securityEventTypes([...defaultPlugins(), organizations()]);
  const event = (type: string, detail: Record<string, string | number | boolean | null>) => ({
    type,
    label: labels.get(type),
    detail,
  });

  it('labels each kind of sign-in', () => {
    const device = 'Firefox on Linux';
    expect(eventLabel(event('sign_in', { device, method: 'sign_in', registration: true }))).toBe(
      'Account created',
    );
    expect(eventLabel(event('sign_in', { device, method: 'sign_in' }))).toBe('Signed in');
    expect(eventLabel(event('sign_in', { device, method: 'remember' }))).toBe(
      'Signed in again (remembered browser)',
    );
    expect(eventLabel(event('password_changed', { first: true }))).toBe('Password set');
    expect(eventLabel(event('password_changed', { first: false }))).toBe('Password changed');
  });

  it('words the admin events (contract section 18) without raw keys', () => {
    expect(eventLabel(event('account_disabled', { admin_id: 1, reason: 'spam', until: null }))).toBe(
      'Account disabled',
    );
    expect(eventDetails(event('account_disabled', { admin_id: 1, reason: 'spam', until: null }))).toEqual([
      'disabled by an administrator: spam',
      'until an administrator enables it again',
    ]);
    expect(
      eventDetails(
        event('account_disabled', { admin_id: 1, reason: 'spam', until: '2026-12-01T09:30:00.000Z' }),
      ),
    ).toEqual(['disabled by an administrator: spam', 'until 2026-12-01 09:30 UTC']);
    expect(eventLabel(event('account_enabled', { admin_id: 1 }))).toBe('Account enabled');
    expect(eventDetails(event('account_enabled', { admin_id: 1 }))).toEqual([
      'enabled again by an administrator',
    ]);
    expect(eventLabel(event('signed_out_by_admin', { admin_id: 1 }))).toBe('Signed out by an administrator');
    expect(eventLabel(event('impersonation_started', { admin_id: 1 }))).toBe('Administrator acting as you');
    expect(
      eventDetails(event('impersonation_started', { admin_id: 1, until: '2026-12-01T09:30:00.000Z' })),
    ).toEqual(['an administrator started acting as you', 'until 2026-12-01 09:30 UTC at the latest']);
    expect(eventLabel(event('impersonation_ended', { admin_id: 1, reason: 'expired' }))).toBe(
      'Administrator stopped acting as you',
    );
    expect(eventDetails(event('impersonation_ended', { admin_id: 1, reason: 'expired' }))).toEqual([
      'the time allowed ran out',
    ]);
    expect(eventDetails(event('impersonation_ended', { admin_id: 1, reason: 'stopped' }))).toEqual([
      'the administrator stopped',
    ]);
  });

  it('says the facts in words', () => {
    expect(
      eventDetails(
        event('sign_in', {
          device: 'Firefox on Linux',
          method: 'sign_in',
          remembered: true,
          new_device: true,
        }),
      ),
    ).toEqual(['Firefox on Linux', 'kept signed in', 'new device']);
    expect(
      eventDetails(
        event('sign_in', {
          device: 'Firefox on Linux',
          method: 'sign_in',
          remembered: false,
          new_device: false,
        }),
      ),
    ).toEqual(['Firefox on Linux']);
    expect(eventDetails(event('sign_in_failed', { method: 'password' }))).toEqual(['wrong password']);
    expect(eventDetails(event('username_changed', { from: 'Ada', to: 'Ada King' }))).toEqual([
      'from Ada to Ada King',
    ]);
    expect(eventDetails(event('sudo_elevated', { factor: 'totp' }))).toEqual(['with your authenticator app']);
    expect(eventDetails(event('factor_enrolled', { factor: 'passkey' }))).toEqual(['Passkey']);
    expect(eventDetails(event('session_revoked', { count: 3, others: true }))).toEqual([
      'all 3 other sessions',
    ]);
    expect(
      eventDetails(
        event('token_created', { name: 'ci', abilities: 'posts:read posts:create', via: 'session' }),
      ),
    ).toEqual(['ci', 'may posts:read, posts:create']);
    expect(eventDetails(event('second_factor_locked', { failures: 5, window_minutes: 15 }))).toEqual([
      '5 wrong codes within 15 minutes',
    ]);
  });
});
