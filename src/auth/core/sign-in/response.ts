import type { FastifyReply, FastifyRequest } from 'fastify';
import { respond, type Outcome } from '../../../http/respond.ts';
import type { SignInResult } from './types.ts';

/**
 * The answer of every sign-in path (password, magic link, social) once beginSignIn has run: its
 * success outcome, or "one more step" towards /action/show while the pipeline holds the sign-in.
 */
export function respondToSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  result: SignInResult,
  success: Outcome,
  pendingAction = 'login.action_required',
): Promise<FastifyReply> {
  if (result.signedIn) return respond(request, reply, success);
  return respond(request, reply, {
    action: pendingAction,
    status: 'info',
    message: 'One more step is needed to finish signing in.',
    redirectTo: '/action/show',
  });
}
