import { SafeHtml } from '../core/html.ts';
import type { Mailer } from './mailer.ts';
import { composeContent, type MailContent } from './templates.ts';
import type { EmailKind, EmailKinds, EmailTemplates } from './kinds.ts';

/** Props as the sender gives them; APP_NAME is added here. */
export type EmailPropsInput<K extends EmailKind> = Omit<EmailKinds[K], 'appName'>;

/**
 * Sends Citadel's messages by kind: the application's replacement (`emails`) where it has one,
 * each missing part from the default, then through the mailer (APP_NAME branding, transport).
 */
export class EmailSender {
  /** Sends not yet accepted by the transport (nor failed), and `afterResponse` work not yet done. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly mailer: Mailer,
    private readonly templates: EmailTemplates,
    private readonly appName: string,
  ) {}

  send<K extends EmailKind>(
    kind: K,
    input: EmailPropsInput<K>,
    defaults: (props: EmailKinds[K]) => MailContent,
  ): Promise<void> {
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
    defaults: (props: EmailKinds[K]) => MailContent,
  ): Promise<void> {
    const props = { ...input, appName: this.appName } as EmailKinds[K];
    const content = composeContent(defaults(props));
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
    });
  }
}
