import { escapeHtml } from '../core/html.ts';
import type { Mailer, MailMessage } from './mailer.ts';
import { coreMessages } from '../core/i18n/messages/index.ts';
import { englishOnly } from '../core/i18n/languages.ts';

/**
 * APP_NAME on every email, in one place: the subject starts with it ("Acme Books: Reset your
 * password") and both bodies end with a line naming it. Every message Citadel or a plugin sends
 * through the `mailer` service passes here, so no template can forget it.
 */
export function brandMessage(message: MailMessage, appName: string): MailMessage {
  const subject = message.subject.startsWith(`${appName}: `)
    ? message.subject
    : `${appName}: ${message.subject}`;
  const signature = coreMessages.in(message.language ?? englishOnly())('mail.signature', { app: appName });
  const footer = `<p style="color: #5b6577; font-size: 0.9em">${escapeHtml(signature)}</p>`;
  const closing = message.html.lastIndexOf('</body>');
  return {
    ...message,
    subject,
    text: `${message.text}\n\n-- \n${signature}`,
    html:
      closing === -1
        ? message.html + footer
        : `${message.html.slice(0, closing)}${footer}\n${message.html.slice(closing)}`,
  };
}

/** A mailer that brands each message before handing it on. */
export class BrandedMailer implements Mailer {
  constructor(
    private readonly inner: Mailer,
    private readonly appName: string,
  ) {}

  send(message: MailMessage): Promise<void> {
    return this.inner.send(brandMessage(message, this.appName));
  }

  close(): void {
    this.inner.close();
  }
}
