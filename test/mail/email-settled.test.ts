// Dialect-independent: pure functions, no database; `npm test` runs it with the first database only.
import { describe, expect, it } from 'vitest';
import { EmailSender } from '../../src/mail/emails.ts';
import type { Mailer, MailMessage } from '../../src/mail/mailer.ts';

/** A transport that accepts (or refuses) each message only when the test says so. */
function heldMailer() {
  const held: { message: MailMessage; accept(): void; refuse(): void }[] = [];
  const mailer: Mailer = {
    send: (message) =>
      new Promise<void>((accept, reject) =>
        held.push({ message, accept, refuse: () => reject(new Error('refused')) }),
      ),
    close: () => undefined,
  };
  return { mailer, held };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

const resetLink = (sender: EmailSender, to: string) =>
  sender.send('resetPassword', { to, username: 'u', url: 'http://x/r', expiresInMinutes: 60 }, () => ({
    subject: 'Reset',
    intro: 'Reset it.',
  }));

describe('EmailSender.settled()', () => {
  it('waits for every send in flight, accepted or failed', async () => {
    const { mailer, held } = heldMailer();
    const sender = new EmailSender(mailer, {}, 'App');
    await sender.settled();
    const first = resetLink(sender, 'a@example.com');
    const second = resetLink(sender, 'b@example.com').catch(() => 'failed');
    let settled = false;
    void sender.settled().then(() => (settled = true));
    await turn();
    expect(held).toHaveLength(2);
    held[0]!.accept();
    await first;
    await turn();
    expect(settled).toBe(false);
    held[1]!.refuse();
    expect(await second).toBe('failed');
    await turn();
    expect(settled).toBe(true);
  });

  it('waits for afterResponse work, and for the sends it starts later', async () => {
    const { mailer, held } = heldMailer();
    const sender = new EmailSender(mailer, {}, 'App');
    let lookedUp!: () => void;
    const lookup = new Promise<void>((resolve) => (lookedUp = resolve));
    // Like a reset link sent after the answer: a lookup first, then (maybe) the send.
    sender.afterResponse(lookup.then(() => resetLink(sender, 'late@example.com')));
    let settled = false;
    void sender.settled().then(() => (settled = true));
    await turn();
    expect(held).toHaveLength(0);
    expect(settled).toBe(false);
    lookedUp();
    await turn();
    expect(held.map((h) => h.message.to)).toEqual(['late@example.com']);
    expect(settled).toBe(false);
    held[0]!.accept();
    await turn();
    expect(settled).toBe(true);
  });
});
