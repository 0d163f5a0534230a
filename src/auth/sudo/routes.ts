import { Type } from '@sinclair/typebox';
import {
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  Envelope,
  type RequestContext,
  availableFactors,
  findFactor,
  readProof,
  activeSudo,
  endSudo,
  grantSudo,
  sudoFactorsFor,
  safeNext,
  beginSecondFactorAttempt,
  proofNotWrong,
  originOf,
  sessionEvent,
} from '../../plugin-api.ts';
import { sudoPage, type SudoPageProps } from './pages.ts';
import { sudoOptions } from './options.ts';
import { sudoMessages } from './messages/index.ts';

/** Where the browser goes after elevation, saved by GET /sudo?next= and bound to the user. */
const NEXT_KEY = 'sudo_next';

function saveNext(request: RequestContext, userId: number, next: string | null): void {
  if (next) request.session.set(NEXT_KEY, { userId, next });
}

function takeNext(request: RequestContext, userId: number): string | null {
  const saved = request.session.get<{ userId: number; next: string }>(NEXT_KEY);
  request.session.delete(NEXT_KEY);
  return saved && saved.userId === userId ? safeNext(saved.next) : null;
}

const NOT_AVAILABLE = sudoMessages.text('answer.notAvailable');

/** A return path, as sent: `safeNext` decides whether it is one (anything else is ignored). */
const NextPath = Type.String({ 'x-raw': true, description: 'A same-site path to return to' });

async function sudoPageProps(request: EndpointInput): Promise<SudoPageProps> {
  const { caller, services } = request;
  const user = caller?.user;
  const state = activeSudo(request);
  const factors = user ? await sudoFactorsFor(request, user) : [];
  return {
    factors,
    pluginFactors: services.factorRegistry.pluginFactors(factors),
    state: state ? { expiresAt: state.expiresAt } : null,
    ttlSeconds: sudoOptions(services).ttlSeconds,
  };
}

/** Step-up: prove a factor again to get a short grace period for sensitive operations. */
const showSudo = defineEndpoint({
  method: 'GET',
  path: '/sudo',
  action: 'sudo.index',
  auth: 'session',
  bearer: false,
  summary: 'Whether sudo mode is on, and the factors that can turn it on',
  query: Type.Object({ next: Type.Optional(NextPath) }),
  responses: {
    200: Envelope({
      data: Type.Object({
        active: Type.Boolean(),
        factors: Type.Array(Type.String()),
        expires_at: Type.Union([Type.String(), Type.Null()]),
        next: Type.Optional(Type.String()),
      }),
    }),
  },
  page: sudoPage,
  pageProps: sudoPageProps,
  async handler(request) {
    const { query, caller } = request;
    const user = caller.user;
    const next = safeNext(query.next);
    saveNext(request, user.id, next);
    const state = activeSudo(request);
    return {
      status: 'info',
      data: {
        active: state !== null,
        factors: await sudoFactorsFor(request, user),
        expires_at: state?.expiresAt ?? null,
        ...(next ? { next } : {}),
      },
      render: true,
    };
  },
});

const challengeSudo = defineEndpoint({
  method: 'POST',
  path: '/sudo/challenge',
  action: 'sudo.challenge',
  auth: 'session',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Start a proof that needs a challenge first (a passkey)',
  body: Type.Object({ factor: Type.String({ maxLength: 32 }) }),
  responses: {
    // The factor's own challenge beside its id (a passkey's `options`, a plugin factor's data).
    200: Envelope({
      data: Type.Object(
        { factor: Type.String(), options: Type.Optional(Type.Unknown()) },
        { additionalProperties: true },
      ),
    }),
  },
  page: sudoPage,
  pageProps: sudoPageProps,
  async handler(request) {
    const { body, caller, services } = request;
    const user = caller.user;
    const factor = findFactor(
      await availableFactors(request, user, services.factorRegistry.sudoFactors),
      body.factor,
    );
    if (!factor) throw new ValidationError({ factor: NOT_AVAILABLE });
    return {
      status: 'info',
      data: { factor: factor.id, ...(await factor.challenge(request, user, 'sudo')) },
    };
  },
});

const verifySudo = defineEndpoint({
  method: 'POST',
  path: '/sudo/verify',
  action: 'sudo.verified',
  auth: 'session',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Prove a factor: sudo mode for SUDO_TTL seconds',
  body: Type.Object({
    factor: Type.Optional(Type.String()),
    // A password or code as typed, or a passkey assertion (JSON text or an object).
    proof: Type.Optional(Type.Unknown({ 'x-raw': true })),
    /** A bare authenticator code: `totp` is implied. */
    code: Type.Optional(Type.Unknown({ 'x-raw': true })),
    next: Type.Optional(NextPath),
  }),
  failures: [429],
  responses: { 200: Envelope({ data: Type.Object({ expires_at: Type.String() }) }) },
  page: sudoPage,
  pageProps: sudoPageProps,
  async handler(request) {
    const { body, caller, services } = request;
    const user = caller.user;
    const { factor: id, proof } = readProof(body);
    const factor = findFactor(await availableFactors(request, user, services.factorRegistry.sudoFactors), id);
    if (!factor) throw new ValidationError({ factor: NOT_AVAILABLE });

    // `maxFailures` (5) failed proofs per `failureWindowSeconds` (15 minutes) per user, whichever
    // factor: the next attempt is refused.
    // The attempt is counted before the proof is checked, so guesses sent all at once cannot
    // pass a read-only check together; a good proof clears the count.
    const options = sudoOptions(services);
    const limitKey = `sudo:${user.id}`;
    await services.rateLimiter.consume(limitKey, options.maxFailures, options.failureWindowSeconds);
    await beginSecondFactorAttempt(services, user, originOf(request));
    if (!(await factor.verify(request, user, proof, 'sudo'))) {
      throw new ValidationError({ proof: sudoMessages.text('answer.notAccepted') });
    }
    await proofNotWrong(services, user.id);
    await services.rateLimiter.reset(limitKey);
    const state = grantSudo(request, user.id, options.ttlSeconds);
    // Sudo lives in the session: its event commits with the session write (before the answer), or not at all.
    const event = {
      userId: user.id,
      type: 'sudo_elevated' as const,
      ...originOf(request),
      detail: { factor: factor.id },
    };
    request.session.alongWithSave(sessionEvent(services.clock, event));
    const next = safeNext(body.next) ?? takeNext(request, user.id) ?? '/';
    request.session.delete(NEXT_KEY);
    return {
      status: 'success',
      message: sudoMessages.text('answer.confirmed'),
      redirect_to: next,
      data: { expires_at: state.expiresAt },
    };
  },
});

const exitSudo = defineEndpoint({
  method: 'POST',
  path: '/sudo/exit',
  action: 'sudo.exit',
  auth: 'session',
  bearer: false,
  summary: 'Leave sudo mode',
  responses: { 200: Envelope({ data: Type.Object({ active: Type.Boolean() }) }) },
  page: sudoPage,
  pageProps: sudoPageProps,
  async handler(request) {
    endSudo(request);
    return {
      status: 'success',
      message: sudoMessages.text('answer.left'),
      data: { active: false },
      redirect_to: '/',
    };
  },
});

/** Step-up (sudo) mode: the page and its proofs. */
export const sudoEndpoints = [showSudo, challengeSudo, verifySudo, exitSudo] as const;
