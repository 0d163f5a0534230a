import { html, ValidationError, type PipelineAction } from '../../../src/plugin-api.ts';
import { blogMessages } from '../pages/messages/index.ts';

const ACCEPTED = new Set([true, 1, '1', 'true', 'on', 'yes']);

/**
 * A custom post-sign-in action: the user must accept the terms of use before the session starts.
 * List it in AUTH_LOGIN_ACTIONS (or AUTH_REGISTER_ACTIONS), e.g. `email_2fa,accept_terms`.
 * POST /action/handle with `accept: true`; anything else is a 422 with `errors.accept`.
 * Its texts are the blog's catalog (`blog.terms.*`), written in the reader's language.
 */
export const acceptTermsAction: PipelineAction = {
  id: 'accept_terms',
  label: blogMessages.text('terms.label'),
  show() {
    return { fields: ['accept'] };
  },
  async handle(_ctx, body) {
    if (!ACCEPTED.has(body.accept as never))
      throw new ValidationError({ accept: blogMessages.text('terms.required') });
    return true;
  },
  renderFields(ctx) {
    const t = blogMessages.in(ctx.request.language);
    return html`<p>${t('terms.intro')}</p>
      <label
        ><input id="field-accept" type="checkbox" name="accept" value="1" required />
        ${t('terms.accept')}</label
      >`;
  },
};
