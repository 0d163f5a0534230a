import { html, type SafeHtml } from '../../http/html/html.ts';
import { csrfField, form, layout, signInLink } from '../../http/html/layout.ts';
import type { PageContext } from '../../http/response/respond.ts';

/** The current step of a pending sign-in, as its page shows it; null when none is waiting. */
export type PipelinePageProps = {
  step: { label: string; maskedEmail: string; fields: SafeHtml; canResend: boolean } | null;
};

/**
 * The page of the current post-sign-in action: its fields (a code box for the email actions, the
 * custom action's own fields otherwise), a resend button when the action can send again, cancel.
 */
export function pipelinePage(ctx: PageContext<PipelinePageProps>) {
  const { step } = ctx.props;
  if (!step) {
    return layout(
      ctx,
      'Sign in',
      html`<p>There is no sign-in step waiting. ${signInLink(ctx, 'Sign in')}</p>`,
    );
  }
  const errors = Object.entries(ctx.errors);
  return layout(
    ctx,
    step.label,
    html`<p>Signing in as <strong>${step.maskedEmail}</strong>.</p>
      ${
        errors.length > 0
          ? html`<ul class="field-error" role="alert">
              ${errors.map(([, message]) => html`<li>${message}</li>`)}
            </ul>`
          : ''
      }
      ${form(ctx, '/action/handle', step.fields, 'Continue', html`id="action-form"`)}
      ${
        step.canResend
          ? html`<form method="post" action="/action/challenge">
              ${csrfField(ctx)}<button class="secondary" type="submit">Send a new code</button>
            </form>`
          : ''
      }
      <form method="post" action="/action/cancel">
        ${csrfField(ctx)}<button class="secondary" type="submit">Cancel</button>
      </form>`,
  );
}
