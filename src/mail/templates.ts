import { html } from '../core/html.ts';
import type { Language } from '../core/i18n/catalog.ts';
import { coreMessages } from '../core/i18n/messages/index.ts';
import { englishOnly } from '../core/i18n/languages.ts';
import type { MailMessage } from './mailer.ts';
import type { EmailContent } from './kinds.ts';

/**
 * Every email has a plain-text and an HTML body built from the same parts: a greeting line,
 * paragraphs, and optionally one link or one code.
 */
export interface MailContent {
  subject: string;
  intro: string;
  link?: { url: string; label: string };
  code?: string;
  outro?: string;
}

/** The three parts of a message in `language` (default English); every value is escaped in the HTML. */
export function composeContent(content: MailContent, language: Language = englishOnly()): EmailContent {
  const codeLine = content.code ? coreMessages.in(language)('mail.code', { code: content.code }) : '';
  const text = [
    content.intro,
    content.link ? `${content.link.label}: ${content.link.url}` : '',
    codeLine,
    content.outro ?? '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const body = html`<!doctype html>
    <html lang="${language.locale}" dir="${language.dir}">
      <body style="font-family: sans-serif; line-height: 1.5">
        <p>${content.intro}</p>
        ${content.link ? html`<p><a href="${content.link.url}">${content.link.label}</a></p>` : ''}
        ${content.code ? html`<p style="font-size: 1.6em; letter-spacing: 0.2em"><strong>${content.code}</strong></p>` : ''}
        ${content.outro ? html`<p>${content.outro}</p>` : ''}
      </body>
    </html>`;
  return { subject: content.subject, text, html: body };
}

/** A message to `to` from `content`: subject, plain text and HTML, in `language` (English when absent). */
export function composeMail(to: string, content: MailContent, language?: Language): MailMessage {
  const { subject, text, html: body } = composeContent(content, language);
  return { to, subject, text, html: body.toString(), language };
}
