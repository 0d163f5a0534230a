import type { FastifyReply, FastifyRequest } from 'fastify';

/** The routes that sign someone in, by method and route template, and the sign-in method each is. */
const SIGN_IN_ROUTES: Record<string, string> = {
  'POST /login': 'password',
  'GET /magic-link/verify/:token': 'magic_link',
  'GET /magic-link/verify': 'magic_link',
  'GET /oauth/callback/:provider': 'social',
  // Finishing the post-sign-in pipeline (an emailed code, activation, a second factor).
  'POST /action/handle': 'pipeline',
};

export type SignInOutcome = 'success' | 'pending' | 'failure' | 'rate_limited';

/**
 * What a sign-in request came to, read from the finished response: refused (429), failed (other
 * 4xx/5xx), signed in (the session now holds a user) or held by the pipeline for another step.
 * Undefined for every other route.
 */
export function classifySignIn(
  request: FastifyRequest,
  reply: FastifyReply,
): { method: string; outcome: SignInOutcome } | undefined {
  const method = SIGN_IN_ROUTES[`${request.method} ${request.routeOptions.url}`];
  if (!method) return undefined;
  const status = reply.statusCode;
  if (status === 429) return { method, outcome: 'rate_limited' };
  if (status >= 400) return { method, outcome: 'failure' };
  const session = request.session;
  const signedIn = session && !session.isDestroyed && session.userId !== null;
  return { method, outcome: signedIn ? 'success' : 'pending' };
}
