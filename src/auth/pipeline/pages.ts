import {
  html,
  type SafeHtml,
  csrfField,
  form,
  layout,
  signInLink,
  type PageContext,
  written,
  type Text,
} from '../../plugin-api.ts';
import { pipelineMessages } from './messages/index.ts';

/** The current step of a pending sign-in, as its page shows it; null when none is waiting. */
export type PipelinePageProps = {
  step: { label: Text; maskedEmail: string; fields: SafeHtml; canResend: boolean } | null;
};

/**
 * The page of the current post-sign-in action: its fields (a code box for the email actions, the
 * custom action's own fields otherwise), a resend button when the action can send again, cancel.
 */
export function pipelinePage(ctx: PageContext<PipelinePageProps>) {
  const t = pipelineMessages.in(ctx.language);
  const { step } = ctx.props;
  if (!step) {
    return layout(
      ctx,
      t('page.noStepTitle'),
      html`<p>${t('page.noStep')} ${signInLink(ctx, t('page.signIn'))}</p>`,
    );
  }
  const errors = Object.entries(ctx.errors);
  return layout(
    ctx,
    written(step.label, ctx.language),
    html`<p>${t('page.signingInAs', { email: step.maskedEmail })}</p>
      ${
        errors.length > 0
          ? html`<ul class="field-error" role="alert">
              ${errors.map(([, message]) => html`<li>${message}</li>`)}
            </ul>`
          : ''
      }
      ${form(ctx, '/action/handle', step.fields, t('page.continue'), html`id="action-form"`)}
      ${
        step.canResend
          ? html`<form method="post" action="/action/challenge">
              ${csrfField(ctx)}<button class="secondary" type="submit">${t('page.resend')}</button>
            </form>`
          : ''
      }
      <form method="post" action="/action/cancel">
        ${csrfField(ctx)}<button class="secondary" type="submit">${t('page.cancel')}</button>
      </form>`,
  );
}
