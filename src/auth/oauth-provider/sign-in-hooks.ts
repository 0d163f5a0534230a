import type { SignedInEvent, EndpointInput } from '../../plugin-api.ts';
import { endPending, readPending } from './consent-pending.ts';
import { writeSignIn } from './sign-in-record.ts';

/** Where the sign-in sends a browser whose authorization request is waiting. */
export const CONTINUE_PATH = '/oauth2/authorize/continue';

/**
 * Every sign-in: keep when it happened and the methods it proved in the session (`auth_time`,
 * `amr`, `max_age`, `prompt=login`), then send a browser with a waiting authorization back to it.
 * A session restored by remember-me keeps nothing: an authorization then asks for a sign-in.
 */
export async function noteSignIn(event: SignedInEvent): Promise<void> {
  const { request, info } = event;
  if (info.method !== 'sign_in') return;
  writeSignIn(request, {
    time: request.services.clock.now().toISOString(),
    amr: [...(request.signInAmr ?? [])],
  });
  if (await readPending(request)) request.signInContinue = CONTINUE_PATH;
}

/** Signing out ends this browser's waiting authorization. */
export async function endPendingOnSignOut(input: EndpointInput): Promise<void> {
  await endPending(input);
}
