/**
 * Issue 13, item 5: an email address is one RFC 5321 mailbox, stored lower-cased, and handed to
 * nodemailer as an address object, so no input can make a mail go to another mailbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../support/app.ts';
import { parseMailbox } from '../../src/http/request/email-address.ts';
import { SmtpMailer } from '../../src/mail/mailer.ts';

/** Addresses that name (or could be delivered to) victim@corp.example without being it. */
const ALIASES = [
  '"<victim@corp.example>"a.b',
  '<victim@corp.example>a.b',
  'victim@corp.example,x.y',
  'victim@corp.example, other@x.example',
  'Victim <victim@corp.example>',
  'victim@corp.example (comment)',
  '(comment)victim@corp.example',
  '"victim"@corp.example',
  'victim@corp.example;x@y.example',
  'victim@[127.0.0.1]',
  'victim@corp..example',
  '.victim@corp.example',
  'vic..tim@corp.example',
  'victim@corp.example\nbcc:x@y.example',
  'victim@-corp.example',
  'victim@corp.123',
  'victim@localhost',
  'vic tim@corp.example',
  'victim@corp\u00a0example.com',
];

describe('email addresses are single mailboxes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('parseMailbox accepts plain mailboxes (lower-cased, any script) and refuses everything else', () => {
    expect(parseMailbox(' Anna.Lee+tag@Example.COM ')).toBe('anna.lee+tag@example.com');
    expect(parseMailbox('josé.accent@example.com')).toBe('josé.accent@example.com');
    expect(parseMailbox("o'brien@sub.example.co.uk")).toBe("o'brien@sub.example.co.uk");
    for (const alias of ALIASES) expect(parseMailbox(alias), alias).toBeNull();
    expect(parseMailbox(`${'a'.repeat(65)}@example.com`)).toBeNull();
  });

  it('registration, forgot-password and magic link refuse each alias with 422 and send nothing', async () => {
    for (const email of ALIASES) {
      const register = await t.client().post('/register', {
        username: 'Alias Maker',
        email,
        password: TEST_PASSWORD,
        password_confirm: TEST_PASSWORD,
      });
      expect(register.status, email).toBe(422);
      expect(register.body.errors.email).toBeTruthy();
      expect((await t.client().post('/forgot-password', { email })).status, email).toBe(422);
      expect((await t.client().post('/magic-link', { email })).status, email).toBe(422);
    }
    const users = await t.services.db.selectFrom('users').select('email').execute();
    expect(users.filter((u) => u.email.includes('victim'))).toHaveLength(0);
    await t.mail.settled();
    expect(t.mail.to('victim@corp.example')).toHaveLength(0);
  });

  it('a valid address is stored lower-cased', async () => {
    const response = await t.client().post('/register', {
      username: 'Mixed Case',
      email: 'Mixed.Case@Example.COM',
      password: TEST_PASSWORD,
      password_confirm: TEST_PASSWORD,
    });
    expect(response.status).toBe(201);
    expect(response.body.user.email).toBe('mixed.case@example.com');
  });

  it('the mailer hands nodemailer an address object: a list in the string reaches nobody it names', async () => {
    const mailer = new SmtpMailer(t.mail.url, 'citadel@example.com');
    const sent = mailer.send({ to: 'victim@corp.example,x.y', subject: 's', text: 't', html: '<p>t</p>' });
    await sent.catch(() => undefined);
    mailer.close();
    // Settled: had the capture accepted a message, it would be stored before the send resolved.
    expect(t.mail.to('victim@corp.example')).toHaveLength(0);
  });
});
