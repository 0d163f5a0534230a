import type { EndpointResult } from '../endpoint.ts';
import type { SignInResult } from './types.ts';
import { authMessages } from '../messages/index.ts';

/**
 * The answer of every sign-in path (password, magic link, social, passkey) once beginSignIn has
 * run: its success result, or "one more step" towards /action/show while the pipeline holds the
 * sign-in (with the `pendingAction` envelope action).
 */
export function signInAnswer(
  result: SignInResult,
  success: EndpointResult,
  pendingAction = 'login.action_required',
): EndpointResult {
  if (result.signedIn) return success;
  return {
    action: pendingAction,
    status: 'info',
    message: authMessages.text('signIn.oneMoreStep'),
    redirect_to: '/action/show',
  };
}
