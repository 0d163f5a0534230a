import { SafeHtml } from '../core/html.ts';
import type { Mailer } from './mailer.ts';
import { composeContent, type MailContent } from './templates.ts';
import type { EmailKind, EmailKinds, EmailTemplates } from './kinds.ts';
import type { Language } from '../core/i18n/catalog.ts';
import { englishOnly, type Languages } from '../core/i18n/languages.ts';

/**
 * Props as the sender gives them; APP_NAME is added here, and `locale` names the language to write
 * in: the recipient's account `locale`, else the request's (`recipientLocale`); absent: the default.
 */
export type EmailPropsInput<K extends EmailKind> = Omit<EmailKinds[K], 'appName' | 'locale'> & {
  locale?: string | null;
};

/** The language of a message to `recipient`: their account's, else the request's that caused it. */
export function recipientLocale(
  recipient: { locale?: string | null } | null | undefined,
  request: { language: Language } | null | undefined,
): string | undefined {
  return recipient?.locale ?? request?.language.locale;
}

/** A kind's built-in message for its props, written in `language`. */
export type EmailDefaults<K extends EmailKind> = (props: EmailKinds[K], language: Language) => MailContent;

/**
 * Sends Citadel's messages by kind: the application's replacement (`emails`) where it has one,
 * each missing part from the default, then through the mailer (APP_NAME branding, transport).
 */
export class EmailSender {
  /** Sends not yet accepted by the transport (nor failed), and `afterResponse` work not yet done. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The server's languages (set once they are known, at mount); English until then. */
  private languages: Pick<Languages, 'get'> = { get: () => englishOnly() };

  constructor(
    private readonly mailer: Mailer,
    private readonly templates: EmailTemplates,
    private readonly appName: string,
  ) {}

  /** Write messages in the server's languages (the core's, the plugins' and the application's). */
  useLanguages(languages: Pick<Languages, 'get'>): void {
    this.languages = languages;
  }

  send<K extends EmailKind>(kind: K, input: EmailPropsInput<K>, defaults: EmailDefaults<K>): Promise<void> {
    return this.track(this.compose(kind, input, defaults));
  }

  /**
   * Work that may send a message after the response is on its way (a password-reset link: the
   * answer must not wait for the lookup and the send). Not awaited by its caller, so it must handle
   * its own errors; `settled()` waits for it like for a send.
   */
  afterResponse(work: Promise<void>): void {
    this.track(work);
  }

  /**
   * Resolves once every message started so far (by a request, a notice or `afterResponse` work)
   * has been accepted by the transport (SMTP server, `mail.send()`) or has failed. For tests ("no
   * mail was sent" without a fixed wait) and for a shutdown that wants the last notices out.
   */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const done = () => void this.inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  private async compose<K extends EmailKind>(
    kind: K,
    input: EmailPropsInput<K>,
    defaults: EmailDefaults<K>,
  ): Promise<void> {
    const language = this.languages.get(input.locale);
    const props = { ...input, appName: this.appName, locale: language.locale } as EmailKinds[K];
    const content = composeContent(defaults(props, language), language);
    const template = this.templates[kind];
    const replaced = template ? await template(props, content) : {};
    const html = replaced.html ?? content.html;
    // A string would be markup with the user's text in it unescaped: only the `html` template's
    // result (or the default) is accepted.
    if (!(html instanceof SafeHtml))
      throw new TypeError(
        `emails.${kind}: html must be built with the html\`\` template of citadel/html, which escapes what it interpolates`,
      );
    await this.mailer.send({
      to: props.to,
      subject: replaced.subject ?? content.subject,
      text: replaced.text ?? content.text,
      html: html.toString(),
      kind,
      props,
      language,
    });
  }
}
