import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import type { FastifyBaseLogger } from 'fastify';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer (`smtp://user:pass@host:port`). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Loopback SMTP servers (development, tests) rarely offer TLS; anything else must.
    const local = /^smtps?:\/\/([^@]*@)?(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(smtpUrl);
    // Options must be merged into the parsed URL: createTransport(url, x) reads x as message defaults.
    // requireTLS: without it nodemailer silently falls back to plaintext when STARTTLS is not offered.
    this.transport = nodemailer.createTransport({
      ...parseConnectionUrl(smtpUrl),
      ...(local ? { ignoreTLS: true } : { requireTLS: true }),
    });
  }

  async send(message: MailMessage): Promise<void> {
    // An address object, never a string: nodemailer parses strings as lists with display names.
    await this.transport.sendMail({ from: this.from, ...message, to: { name: '', address: message.to } });
  }

  close(): void {
    this.transport.close();
  }
}

/** Without SMTP_URL: messages go to the log, so a developer can follow links and codes locally. */
export class LogMailer implements Mailer {
  constructor(
    private readonly logger: FastifyBaseLogger,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    this.logger.info(
      { mail: { from: this.from, to: message.to, subject: message.subject } },
      `mail (log transport, set SMTP_URL to send):\n${message.text}`,
    );
  }

  close(): void {}
}
