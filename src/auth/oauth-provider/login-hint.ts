import type { AfterHookHandler } from '../../plugin-api.ts';
import { readPending } from './consent-pending.ts';

/** The longest hint kept: the sign-in form's identifier field takes no more. */
const LONGEST_HINT = 191;

/**
 * The `login_hint` of an authorization request as the sign-in form may show it: trimmed, at most
 * `LONGEST_HINT` characters, no control characters; anything else is dropped (the hint is optional).
 */
export function loginHintOf(value: string | undefined): string | null {
  const hint = value?.trim();
  if (!hint || hint.length > LONGEST_HINT || /\p{Cc}/u.test(hint)) return null;
  return hint;
}

/**
 * The sign-in page of a browser whose authorization request named a `login_hint`: the page gets
 * it (read from the pending authorization, never from the URL) to prefill its identifier field.
 * It is only a form value: the user still proves who they are, as any other sign-in.
 */
export const offerLoginHint: AfterHookHandler = async (input) => {
  const hint = (await readPending(input))?.request.loginHint;
  return hint ? { data: { login_hint: hint } } : undefined;
};
