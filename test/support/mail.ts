import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

function headers(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

function decodeHeader(value: string): string {
  // Whitespace between two encoded words (a folded long header) is not part of the text (RFC 2047 6.2).
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

/** A small MIME reader for what nodemailer sends: one part, or multipart/alternative text + html. */
export function parseMail(raw: string): Omit<CapturedMail, 'raw' | 'to'> {
  const split = raw.search(/\r?\n\r?\n/);
  const head = headers(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const parts: { type: string; content: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/i.exec(head['content-type'] ?? '')?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const at = chunk.search(/\r?\n\r?\n/);
      const partHead = headers(chunk.slice(0, at).replace(/^\r?\n/, ''));
      parts.push({
        type: partHead['content-type'] ?? 'text/plain',
        content: decodeBody(
          chunk
            .slice(at)
            .replace(/^\r?\n\r?\n/, '')
            .replace(/\r?\n$/, ''),
          partHead['content-transfer-encoding'],
        ),
      });
    }
  } else {
    parts.push({
      type: head['content-type'] ?? 'text/plain',
      content: decodeBody(body, head['content-transfer-encoding']),
    });
  }
  return {
    from: head.from ?? '',
    subject: decodeHeader(head.subject ?? ''),
    text: parts.find((p) => p.type.startsWith('text/plain'))?.content ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.content ?? '',
  };
}

/** A real SMTP server on loopback that keeps every message it receives. */
export class MailCapture {
  readonly messages: CapturedMail[] = [];
  private waiters: (() => void)[] = [];
  /** The apps sending here: each one's `emails.settled()` (see `settled()`). */
  private readonly senders = new Set<{ settled(): Promise<void> }>();
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.messages.push({
            ...parseMail(raw),
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            raw,
          });
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Messages to one address, oldest first. */
  to(address: string): CapturedMail[] {
    return this.messages.filter((m) => m.to.includes(address.toLowerCase()));
  }

  /**
   * Wait until the `count`-th message to `address` arrives (default: one more than now); with
   * `match`, only the messages it accepts count (security notices may arrive in between).
   */
  async waitFor(
    address: string,
    options: { count?: number; timeoutMs?: number; match?: (mail: CapturedMail) => boolean } = {},
  ): Promise<CapturedMail> {
    const matching = () => this.to(address).filter(options.match ?? (() => true));
    const count = options.count ?? matching().length + 1;
    const deadline = Date.now() + (options.timeoutMs ?? 5000);
    while (matching().length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail #${count} to ${address} within the timeout`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return matching()[count - 1]!;
  }

  /** Count `sender`'s messages in `settled()` (test apps do it for their `services.emails`). */
  trackSender(sender: { settled(): Promise<void> }): () => void {
    this.senders.add(sender);
    return () => void this.senders.delete(sender);
  }

  /**
   * Every message the apps sending here have started (in a request, or after its response: a
   * reset link, a notice) has been accepted by this server or has failed. What has not arrived by
   * then was never sent: "no mail" is asserted after this, with no fixed wait.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.senders].map((sender) => sender.settled()));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The first URL in a message's text that starts with `prefix`. */
export function linkIn(mail: CapturedMail, prefix: string): string {
  const match = mail.text.match(new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\S+`));
  if (!match) throw new Error(`no link starting with ${prefix} in mail "${mail.subject}"`);
  return match[0];
}

/** The first 6-digit code in a message's text. */
export function codeIn(mail: CapturedMail): string {
  const match = mail.text.match(/\b\d{6}\b/);
  if (!match) throw new Error(`no code in mail "${mail.subject}"`);
  return match[0];
}
