import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRecord } from '../users.ts';
import type { PipelinePurpose, SignInResult } from './types.ts';
import { establishSession } from '../sign-in.ts';

export interface BeginSignInOptions {
  purpose: PipelinePurpose;
  remember: boolean;
}

/**
 * Every sign-in path calls this once the user is identified (password checked, link or provider
 * verified). It runs the post-sign-in pipeline: the configured actions, then automatic ones such as
 * two_factor. With nothing pending the session is established at once.
 *
 * The pipeline module (src/auth/pipeline) replaces the body of this function with the full runner.
 */
export async function beginSignIn(
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  options: BeginSignInOptions,
): Promise<SignInResult> {
  await establishSession(request, reply, user, { remember: options.remember });
  return { signedIn: true };
}
