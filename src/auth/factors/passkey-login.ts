import type { FastifyInstance } from 'fastify';
import { generateAuthenticationOptions, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { respond } from '../../http/respond.ts';
import { HttpError } from '../../core/errors.ts';
import { FieldReader } from '../../http/fields.ts';
import { isoAfter } from '../../core/clock.ts';
import { publicUser } from '../core/users.ts';
import { beginSignIn } from '../pipeline/runner.ts';
import { respondToSignIn } from '../pipeline/sign-in-response.ts';
import { claimOnce } from '../pipeline/claims.ts';
import { assertMaySignIn } from '../accounts/login.ts';
import { originOf, recordSecurityEvent } from '../account-center/events.ts';
import { parseJsonProof, relyingParty, verifyAssertion } from './passkey.ts';

/** The sign-in challenge: in the session, 5 minutes, single use (contract section 10). */
const CHALLENGE_KEY = 'passkey_login_challenge';
const CHALLENGE_TTL_SECONDS = 5 * 60;

interface LoginChallenge {
  challenge: string;
  expiresAt: string;
}

export class PasskeyRejectedError extends HttpError {
  override name = 'PasskeyRejectedError';
  constructor() {
    super(401, 'That passkey could not sign you in.', {
      errors: { passkey: 'That passkey could not sign you in. Try again or use your password.' },
    });
  }
}

/**
 * Passkeys as a sign-in method: discoverable credentials, no username typed. A passkey verified
 * with user verification (PIN, biometrics) is two factors at once, so it satisfies `two_factor`;
 * every other sign-in action still runs.
 */
export async function passkeyLoginRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/passkey/login/options',
    { config: { action: 'passkey.options', jsonOnly: true } },
    async (request, reply) => {
      const services = request.server;
      const options = await generateAuthenticationOptions({
        rpID: relyingParty(services).rpID,
        userVerification: 'required',
      });
      const state: LoginChallenge = {
        challenge: options.challenge,
        expiresAt: isoAfter(services.clock, CHALLENGE_TTL_SECONDS),
      };
      request.session.set(CHALLENGE_KEY, state);
      return respond(request, reply, { action: 'passkey.options', status: 'info', data: { options } });
    },
  );

  app.post(
    '/passkey/login',
    { config: { action: 'passkey.login', jsonOnly: true } },
    async (request, reply) => {
      const services = request.server;
      const fields = new FieldReader(request.body);
      const response = parseJsonProof<AuthenticationResponseJSON>(fields.raw('response'));
      const remember = fields.boolean('remember');
      // Taken out of the session whatever happens next: one challenge, one attempt.
      const pending = request.session.get<LoginChallenge>(CHALLENGE_KEY);
      request.session.delete(CHALLENGE_KEY);
      const now = services.clock.now().toISOString();
      if (!response || !pending || typeof pending.challenge !== 'string' || pending.expiresAt <= now)
        throw new PasskeyRejectedError();
      // Two requests carrying the same session (and so the same challenge) at once: only one may use it.
      if (!(await claimOnce(services, `passkey-login:${pending.challenge}`, CHALLENGE_TTL_SECONDS)))
        throw new PasskeyRejectedError();
      const stored = await services.db
        .selectFrom('passkeys')
        .selectAll()
        .where('credential_id', '=', response.id)
        .executeTakeFirst();
      if (!stored) throw new PasskeyRejectedError();
      if (!(await verifyAssertion(request, stored, response, pending.challenge, true))) {
        await recordSecurityEvent(services.db, services.clock, {
          userId: stored.user_id,
          type: 'sign_in_failed',
          ...originOf(request),
          detail: { method: 'passkey' },
        });
        throw new PasskeyRejectedError();
      }
      const user = await services.users.findById(stored.user_id);
      if (!user) throw new PasskeyRejectedError();
      assertMaySignIn(services, user);
      const result = await beginSignIn(request, reply, user, {
        purpose: 'login',
        remember,
        satisfied: ['two_factor'],
      });
      return respondToSignIn(
        request,
        reply,
        result,
        {
          action: 'passkey.login',
          status: 'success',
          message: 'You are signed in.',
          user: publicUser(user),
          redirectTo: '/',
        },
        'passkey.action_required',
      );
    },
  );
}
