import type { RequestContext } from '../../plugin-api.ts';

/** Session key: when and how the session's user signed in (for `auth_time`, `amr`, `max_age`). */
export const SIGN_IN_KEY = 'oauth_sign_in';

export interface SignInRecord {
  /** ISO time of the sign-in. */
  time: string;
  /** RFC 8176 methods it proved. */
  amr: string[];
}

/** What the session knows of its sign-in; undefined for a session restored by remember-me. */
export function readSignIn(request: RequestContext): SignInRecord | undefined {
  const record = request.session.get<SignInRecord>(SIGN_IN_KEY);
  if (!record || typeof record.time !== 'string' || !Array.isArray(record.amr)) return undefined;
  return record;
}

/** Kept at each sign-in (by the plugin's sign-in listener). */
export function writeSignIn(request: RequestContext, record: SignInRecord): void {
  request.session.set(SIGN_IN_KEY, record);
}
