import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import type { FastifyBaseLogger } from 'fastify';
import type { EmailKind, MailService, OutgoingEmail } from './kinds.ts';
import type { Language } from '../core/i18n/catalog.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Which of Citadel's messages this is (none for a plugin's own), and its props. */
  kind?: EmailKind;
  props?: object;
  /** The language the message is written in: the closing line that names APP_NAME follows it. */
  language?: Language;
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
    const { subject, text, html } = message;
    await this.transport.sendMail({
      from: this.from,
      subject,
      text,
      html,
      to: { name: '', address: message.to },
    });
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

/** The application's mail service (`mail: { send }`): SMTP is not used. */
export class CustomMailer implements Mailer {
  constructor(
    private readonly service: MailService,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const { to, subject, text, html, kind, props } = message;
    await this.service.send({ from: this.from, to, subject, text, html, kind, props } as OutgoingEmail);
  }

  close(): void {
    void Promise.resolve(this.service.close?.()).catch(() => undefined);
  }
}
