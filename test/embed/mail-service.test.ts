import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_KINDS, type EmailKind, type EmailTemplates, type OutgoingEmail } from '../../src/index.ts';
import { html, type SafeHtml } from '../../src/html.ts';
import { EmailSender } from '../../src/mail/emails.ts';
import { requestEmailChange } from '../../src/auth/account-center/email-change.ts';
import { notify } from '../../src/auth/core/notify.ts';
import { NOTIFICATION_IDS } from '../../src/auth/core/account-settings.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/*
 * Mail as a replaceable service (contract section 15): `mail: { send }` replaces SMTP and receives
 * every kind of message Citadel sends, with its kind and props; `emails` replaces one kind's parts
 * while every other kind keeps its default; replaced HTML still escapes what it interpolates.
 */

const HOSTILE_DEVICE = '<script>alert(1)</script> on "Evil" & Co';

const templates: EmailTemplates = {
  // Subject and HTML replaced, text kept from the default.
  resetPassword: (props) => ({
    subject: `Reset for ${props.username}`,
    html: html`<h1>Hello ${props.username}</h1>
      <p><a href="${props.url}">Pick a password</a> (${props.expiresInMinutes} min)</p>`,
  }),
  // A replacement that interpolates user-controlled text (the User-Agent's description).
  newDeviceNotice: (props, defaults) => ({
    html: html`<p class="own">Seen on ${props.device ?? 'an unknown device'}</p>
      ${defaults.html}`,
  }),
};

describe('mail: { send } and emails: { <kind>: ... }', () => {
  let t: TestApp;
  const sent: OutgoingEmail[] = [];
  let closedService = false;

  beforeAll(async () => {
    t = await startTestApp({
      registerActions: ['email_activation'],
      registerHideExisting: true,
      loginActions: ['email_2fa'],
      mailFrom: 'Acme <no-reply@acme.example>',
      appName: 'Acme',
      mail: {
        send: (message) => void sent.push(message),
        close: () => void (closedService = true),
      },
      emails: templates,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const ofKind = <K extends EmailKind>(kind: K) =>
    sent.filter((m): m is Extract<OutgoingEmail, { kind: K }> => m.kind === kind);

  it('the custom service receives every kind of message, and SMTP gets none', async () => {
    const client = t.client();
    const registered = await client.post('/register', {
      username: 'mailuser',
      email: 'mailuser@example.com',
      password: 'correct horse battery staple',
      password_confirm: 'correct horse battery staple',
    });
    expect(registered.status, registered.text).toBeLessThan(300);
    const again = await t.client().post('/register', {
      username: 'mailuser2',
      email: 'mailuser@example.com',
      password: 'correct horse battery staple',
      password_confirm: 'correct horse battery staple',
    });
    expect(again.status, again.text).toBeLessThan(300);

    const user = await t.createUser({
      username: 'active user',
      email: 'active@example.com',
      emailVerified: true,
    });
    const login = await t
      .client()
      .post('/login', { email: user.email, password: 'correct horse battery staple' });
    expect(login.status, login.text).toBe(200);
    expect((await t.client().post('/forgot-password', { email: user.email })).status).toBeLessThan(300);
    expect((await t.client().post('/magic-link', { email: user.email })).status).toBeLessThan(300);
    const origin = { ip: '192.0.2.1', userAgent: null };
    await requestEmailChange(t.services, user, 'new-address@example.com', origin, { hideExisting: false });
    // REGISTER_HIDE_EXISTING: a taken address's owner gets a notice instead of a link.
    const other = await t.createUser({ email: 'taken@example.com' });
    await requestEmailChange(t.services, user, other.email, origin, { hideExisting: true });
    for (const id of NOTIFICATION_IDS)
      await notify(t.services, user, id, { device: HOSTILE_DEVICE, ip: '192.0.2.1', subject: 'TOTP' });
    // The reset and magic links are sent after their answers.
    await t.mail.settled();

    const kinds = new Set(sent.map((m) => m.kind));
    for (const kind of EMAIL_KINDS) expect(kinds.has(kind), kind).toBe(true);
    expect(t.mail.messages).toHaveLength(0);
    for (const message of sent) {
      expect(message.from).toBe('Acme <no-reply@acme.example>');
      expect(message.subject.startsWith('Acme: ')).toBe(true);
      expect(typeof message.text).toBe('string');
      expect(typeof message.html).toBe('string');
    }

    // Typed props with every message.
    const code = ofKind('activationCode')[0]!;
    expect(code.to).toBe('mailuser@example.com');
    expect(code.props).toMatchObject({ to: code.to, username: 'mailuser', appName: 'Acme' });
    expect(code.text).toContain(code.props.code);
    expect(ofKind('signInCode')[0]!.props.username).toBe('active user');
    expect(ofKind('registrationAttempt')[0]!.props.username).toBe('mailuser');
    const magic = ofKind('magicLink')[0]!;
    expect(magic.props.url).toMatch(/^http:\/\/localhost:3000\/magic-link\/verify\//);
    expect(magic.text).toContain(magic.props.url);
    expect(ofKind('confirmEmailChange')[0]!.props).toMatchObject({
      to: 'new-address@example.com',
      newEmail: 'new-address@example.com',
    });
    expect(ofKind('tokenCreatedNotice')[0]!.props).toMatchObject({ tokenName: 'TOTP', ip: '192.0.2.1' });
    expect(ofKind('factorAddedNotice')[0]!.props.factor).toBe('TOTP');
    expect(ofKind('passwordChangedNotice')[0]!.props).not.toHaveProperty('factor');
  });

  it('a replaced kind uses its parts (the default fills the rest); every other kind keeps its default', () => {
    const reset = ofKind('resetPassword')[0]!;
    expect(reset.subject).toBe('Acme: Reset for active user');
    expect(reset.html).toContain('<h1>Hello active user</h1>');
    expect(reset.html).toContain(`<a href="${reset.props.url.replace(/&/g, '&amp;')}">Pick a password</a>`);
    // The text part was not replaced: the default's, with the link.
    expect(reset.text).toContain('Choose a new password: ' + reset.props.url);
    expect(ofKind('magicLink')[0]!.subject).toBe('Acme: Your sign-in link');
    expect(ofKind('magicLink')[0]!.html).toContain('Sign in</a>');
    expect(ofKind('passwordChangedNotice')[0]!.subject).toBe('Acme: Your password was changed');
  });

  it('user-provided text stays escaped in default and replaced HTML', () => {
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt; on &quot;Evil&quot; &amp; Co';
    for (const kind of ['passwordChangedNotice', 'newDeviceNotice'] as const) {
      const message = ofKind(kind)[0]!;
      expect(message.props.device).toBe(HOSTILE_DEVICE);
      expect(message.html).not.toContain('<script>');
      expect(message.html).toContain(escaped);
    }
    expect(ofKind('newDeviceNotice')[0]!.html).toContain(`<p class="own">Seen on ${escaped}</p>`);
  });

  it('a replacement whose html is a plain string is refused, not sent', async () => {
    const received: unknown[] = [];
    const sender = new EmailSender(
      { send: async (m) => void received.push(m), close() {} },
      { magicLink: (props) => ({ html: `<b>${props.username}</b>` as unknown as SafeHtml }) },
      'Acme',
    );
    await expect(
      sender.send(
        'magicLink',
        { to: 'a@example.com', username: '<i>x</i>', url: 'http://x', expiresInMinutes: 5 },
        () => ({
          subject: 's',
          intro: 'i',
        }),
      ),
    ).rejects.toThrow(/html must be built with the html`` template/);
    expect(received).toHaveLength(0);
  });

  it('the service closes with Citadel', async () => {
    await t.server.close();
    expect(closedService).toBe(true);
  });
});
