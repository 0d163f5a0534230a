import { SafeHtml } from '../http/html.ts';
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
  constructor(
    private readonly mailer: Mailer,
    private readonly templates: EmailTemplates,
    private readonly appName: string,
  ) {}

  async send<K extends EmailKind>(
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
