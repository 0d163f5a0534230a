import type { RequestContext } from '../../plugin-api.ts';
import { PENDING_COOKIE, readPending } from './consent-pending.ts';

/**
 * A browser with a waiting authorization may finish it from a form (the password form, a second
 * factor's step, the consent form) whose redirects end at the client's redirect URI. Browsers
 * check that whole redirect chain against the form page's CSP `form-action`, so this browser's
 * pages let their forms go to that one redirect URI's origin as well. Browsers without the
 * cookie pay nothing (no read, no promise).
 */
export function allowClientRedirect(request: RequestContext): Promise<void> | void {
  if (request.cookies[PENDING_COOKIE] === undefined) return;
  return readPending(request).then((pending) => {
    if (pending) request.allowFormTarget(pending.request.redirectUri);
  });
}
