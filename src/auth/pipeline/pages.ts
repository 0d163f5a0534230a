import { html } from '../../http/html.ts';
import { csrfField, form, layout } from '../../http/layout.ts';
import type { PageContext } from '../../http/respond.ts';
import { maskEmail, readPending } from './context.ts';
import { actionContext } from './runner.ts';

/**
 * The page of the current post-sign-in action: its fields (a code box for the email actions, the
 * custom action's own fields otherwise), a resend button when the action can send again, cancel.
 */
export async function pipelinePage(ctx: PageContext) {
  const { request } = ctx;
  const services = request.server.citadel;
  const pending = readPending(request.session);
  const action = pending ? services.actions.get(pending.current) : undefined;
  const user = pending && action ? await services.users.findById(pending.userId) : undefined;
  if (!pending || !action || !user) {
    return layout(
      ctx,
      'Sign in',
      html`<p>There is no sign-in step waiting. <a href="/login">Sign in</a></p>`,
    );
  }
  const actionCtx = actionContext(request, user, pending, action.id);
  const errors = Object.entries(ctx.errors);
  const fields = action.renderFields
    ? action.renderFields(actionCtx)
    : html`<p>Continue to finish signing in.</p>`;
  return layout(
    ctx,
    action.label,
    html`<p>Signing in as <strong>${maskEmail(user.email)}</strong>.</p>
      ${
        errors.length > 0
          ? html`<ul class="field-error" role="alert">
              ${errors.map(([, message]) => html`<li>${message}</li>`)}
            </ul>`
          : ''
      }
      ${form(ctx, '/action/handle', fields, 'Continue', html`id="action-form"`)}
      ${
        action.challenge
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
