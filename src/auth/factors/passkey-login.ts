import { Type } from '@sinclair/typebox';
import { generateAuthenticationOptions, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  HttpError,
  isoAfter,
  publicUser,
  beginSignIn,
  signInAnswer,
  claimOnce,
  assertMaySignIn,
  originOf,
  recordSecurityEvent,
  defineEndpoint,
  Envelope,
} from '../../plugin-api.ts';
import { parseJsonProof, relyingParty, verifyAssertion } from './passkey.ts';
import { webAuthnJson } from './schemas.ts';
import { factorsMessages } from './messages/index.ts';

/** The sign-in challenge: in the session, 5 minutes, single use. */
const CHALLENGE_KEY = 'passkey_login_challenge';
const CHALLENGE_TTL_SECONDS = 5 * 60;

interface LoginChallenge {
  challenge: string;
  expiresAt: string;
}

export class PasskeyRejectedError extends HttpError {
  override name = 'PasskeyRejectedError';
  constructor() {
    super(401, factorsMessages.text('error.passkeyRejected'), {
      errors: { passkey: factorsMessages.text('error.passkeyRejectedHint') },
    });
  }
}

/**
 * Passkeys as a sign-in method: discoverable credentials, no username typed. A passkey verified
 * with user verification (PIN, biometrics) is two factors at once, so it satisfies `two_factor`;
 * every other sign-in action still runs. Both ceremonies read JSON only (their client is the page
 * script): any other body is 415.
 */

const loginOptions = defineEndpoint({
  method: 'POST',
  path: '/passkey/login/options',
  action: 'passkey.options',
  auth: 'anonymous',
  jsonOnly: true,
  summary: 'Request options for signing in with a passkey (the challenge stays in the session)',
  responses: {
    200: Envelope({
      data: Type.Object({
        options: webAuthnJson(
          'The WebAuthn request options (PublicKeyCredentialRequestOptionsJSON): no allowCredentials, user verification required.',
        ),
      }),
    }),
  },
  async handler({ services, session }) {
    const options = await generateAuthenticationOptions({
      rpID: relyingParty(services).rpID,
      userVerification: 'required',
    });
    const state: LoginChallenge = {
      challenge: options.challenge,
      expiresAt: isoAfter(services.clock, CHALLENGE_TTL_SECONDS),
    };
    session.set(CHALLENGE_KEY, state);
    return { status: 'info', data: { options } };
  },
});

const login = defineEndpoint({
  method: 'POST',
  path: '/passkey/login',
  action: 'passkey.login',
  auth: 'anonymous',
  jsonOnly: true,
  summary: 'Sign in with a passkey (then signed in, or one more step: `passkey.action_required`)',
  description:
    'Unknown credential, missing user verification, bad signature, wrong origin, a missing, expired ' +
    'or reused challenge: 401 with `errors.passkey`.',
  body: Type.Object({
    // Checked by the ceremony, not here: a response that is no assertion is refused like a bad one (401).
    response: Type.Optional(
      Type.Union(
        [
          webAuthnJson("The browser's assertion (AuthenticationResponseJSON)."),
          Type.String({ description: 'The same, as JSON text.' }),
        ],
        {
          description: "The browser's assertion (AuthenticationResponseJSON), as an object or as JSON text.",
        },
      ),
    ),
    remember: Type.Optional(Type.Boolean({ description: 'Keep this browser signed in (30 days).' })),
  }),
  failures: [401, 403],
  responses: { 200: Envelope({ user: 'optional' }) },
  async handler(request) {
    const { body, services } = request;
    const response = parseJsonProof<AuthenticationResponseJSON>(body.response);
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
    const result = await beginSignIn(request, user, {
      purpose: 'login',
      remember: body.remember === true,
      satisfied: ['two_factor'],
    });
    return signInAnswer(
      result,
      {
        status: 'success',
        message: factorsMessages.text('answer.signedIn'),
        user: publicUser(user),
        redirect_to: '/',
      },
      'passkey.action_required',
    );
  },
});

/** Signing in with a passkey: its options, then the assertion. */
export const passkeyLoginEndpoints = [loginOptions, login] as const;
