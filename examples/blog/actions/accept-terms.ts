import type { PipelineAction } from '../../../src/index.ts';
import { ValidationError } from '../../../src/index.ts';
import { html } from '../../../src/core/html.ts';

const ACCEPTED = new Set([true, 1, '1', 'true', 'on', 'yes']);

/**
 * A custom post-sign-in action: the user must accept the terms of use before the session starts.
 * List it in AUTH_LOGIN_ACTIONS (or AUTH_REGISTER_ACTIONS), e.g. `email_2fa,accept_terms`.
 * POST /action/handle with `accept: true`; anything else is a 422 with `errors.accept`.
 */
export const acceptTermsAction: PipelineAction = {
  id: 'accept_terms',
  label: 'Accept the terms of use',
  show() {
    return { fields: ['accept'] };
  },
  async handle(_ctx, body) {
    if (!ACCEPTED.has(body.accept as never))
      throw new ValidationError({ accept: 'Please accept the terms of use to continue.' });
    return true;
  },
  renderFields() {
    return html`<p>Please read and accept the terms of use of this blog to continue.</p>
      <label
        ><input id="field-accept" type="checkbox" name="accept" value="1" required /> I accept the terms of
        use</label
      >`;
  },
};
