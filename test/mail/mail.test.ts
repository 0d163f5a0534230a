import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { composeMail } from '../../src/mail/templates.ts';
import { SmtpMailer } from '../../src/mail/mailer.ts';

describe('mail over SMTP (real capture on loopback)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ mailFrom: 'Citadel Tests <tests@citadel.test>' });
  });
  afterAll(async () => t?.close());

  it('sends a plain-text and an HTML body, escaped, from MAIL_FROM', async () => {
    await t.services.mailer.send(
      composeMail('Someone@Example.com', {
        subject: 'Hello ünïcode',
        intro: 'Hi <b>there</b> & welcome.',
        link: { url: 'http://localhost:3000/x?token=abc&y=1', label: 'Open it' },
        code: '123456',
        outro: 'Bye.',
      }),
    );
    const mail = await t.mail.waitFor('someone@example.com', { count: 1 });
    expect(mail.subject).toBe('Citadel: Hello ünïcode');
    expect(mail.from).toContain('tests@citadel.test');
    expect(mail.text).toContain('Hi <b>there</b> & welcome.');
    expect(mail.text).toContain('Open it: http://localhost:3000/x?token=abc&y=1');
    expect(mail.text).toContain('Your code: 123456');
    expect(mail.html).toContain('Hi &lt;b&gt;there&lt;/b&gt; &amp; welcome.');
    expect(mail.html).toContain('href="http://localhost:3000/x?token=abc&amp;y=1"');
    expect(mail.html).toContain('<strong>123456</strong>');
    expect(mail.raw).toMatch(/multipart\/alternative/i);
  });

  it('refuses to send in plaintext to a non-loopback-named server that offers no STARTTLS', async () => {
    let received = 0;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          received += 1;
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    const { port } = server.server.address() as AddressInfo;
    const mailer = new SmtpMailer(`smtp://127.0.0.2:${port}`, 'x@example.com');
    try {
      await expect(
        mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' }),
      ).rejects.toThrow(/STARTTLS/i);
      expect(received).toBe(0);
    } finally {
      mailer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a failing SMTP server is an error for the sender', async () => {
    const mailer = new SmtpMailer('smtp://127.0.0.1:1', 'x@example.com');
    await expect(
      mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' }),
    ).rejects.toThrow();
    mailer.close();
  });
});

describe('mail without SMTP_URL: the log transport', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      smtpUrl: undefined,
      logger: undefined,
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => t?.close());

  it('writes the message (recipient, subject and text with the link) to the log, and sends nothing', async () => {
    const user = await t.createUser();
    const res = await t.client().post('/forgot-password', { email: user.email });
    expect(res.status).toBe(200);
    // The link is sent after the answer: once every send has settled, its log line is written.
    await t.mail.settled();
    const entry = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.mail !== undefined);
    expect(entry).toBeDefined();
    expect(entry!.mail).toEqual({
      from: 'Citadel <no-reply@localhost>',
      to: user.email,
      subject: 'Citadel: Reset your password',
    });
    expect(String(entry!.msg)).toContain('log transport');
    expect(String(entry!.msg)).toMatch(/http:\/\/localhost:3000\/reset-password\?token=[\w-]{43}/);
    expect(t.mail.messages).toEqual([]);
  });
});
