import type { FastifyInstance, FastifyRequest } from 'fastify';
import { respond } from '../../http/respond.ts';
import { requireSessionUser } from '../core/caller.ts';
import { ValidationError } from '../../core/errors.ts';
import { FieldReader } from '../../http/fields.ts';
import { sudoPage, type SudoPageProps } from './pages.ts';
import { availableFactors, findFactor } from '../factors/registry.ts';
import { readProof } from '../factors/action.ts';
import { activeSudo, endSudo, grantSudo } from './state.ts';
import { sudoFactorsFor } from './eligible.ts';
import { safeNext } from './next.ts';
import { beginSecondFactorAttempt, proofNotWrong } from '../second-factor-budget.ts';
import { originOf, sessionEvent } from '../account-center/events.ts';

/** Where the browser goes after elevation, saved by GET /sudo?next= and bound to the user. */
const NEXT_KEY = 'sudo_next';

function saveNext(request: FastifyRequest, userId: number, next: string | null): void {
  if (next) request.session.set(NEXT_KEY, { userId, next });
}

function takeNext(request: FastifyRequest, userId: number): string | null {
  const saved = request.session.get<{ userId: number; next: string }>(NEXT_KEY);
  request.session.delete(NEXT_KEY);
  return saved && saved.userId === userId ? safeNext(saved.next) : null;
}

/** Step-up: prove a factor again to get a short grace period for sensitive operations. */
export async function sudoRoutes(app: FastifyInstance): Promise<void> {
  const { config, rateLimiter } = app;
  app.get(
    '/sudo',
    { config: { action: 'sudo.index', page: sudoPage, pageProps: sudoPageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const next = safeNext((request.query as Record<string, unknown>).next);
      saveNext(request, user.id, next);
      const state = activeSudo(request);
      return respond(request, reply, {
        action: 'sudo.index',
        status: 'info',
        data: {
          active: state !== null,
          factors: await sudoFactorsFor(request, user),
          expires_at: state?.expiresAt ?? null,
          ...(next ? { next } : {}),
        },
        render: true,
      });
    },
  );

  app.post(
    '/sudo/challenge',
    { config: { action: 'sudo.challenge', page: sudoPage, pageProps: sudoPageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const fields = new FieldReader(request.body);
      const id = fields.string('factor', { required: true, max: 32 });
      fields.throwIfInvalid();
      const factor = findFactor(
        await availableFactors(request, user, request.server.factorRegistry.sudoFactors),
        id,
      );
      if (!factor) throw new ValidationError({ factor: 'This factor is not available for your account.' });
      return respond(request, reply, {
        action: 'sudo.challenge',
        status: 'info',
        data: { factor: factor.id, ...(await factor.challenge(request, user, 'sudo')) },
      });
    },
  );

  app.post(
    '/sudo/verify',
    { config: { action: 'sudo.verified', page: sudoPage, pageProps: sudoPageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const { factor: id, proof } = readProof(body);
      const factor = findFactor(
        await availableFactors(request, user, request.server.factorRegistry.sudoFactors),
        id,
      );
      if (!factor) throw new ValidationError({ factor: 'This factor is not available for your account.' });

      // 5 failed proofs per 15 minutes per user, whichever factor: the sixth attempt is refused.
      // The attempt is counted before the proof is checked, so guesses sent all at once cannot
      // pass a read-only check together; a good proof clears the count.
      const { sudoMaxFailures, sudoFailureWindow } = config.limits;
      const limitKey = `sudo:${user.id}`;
      await rateLimiter.consume(limitKey, sudoMaxFailures, sudoFailureWindow);
      await beginSecondFactorAttempt(request.server, user, originOf(request));
      if (!(await factor.verify(request, user, proof, 'sudo'))) {
        throw new ValidationError({ proof: 'That proof was not accepted. Please try again.' });
      }
      await proofNotWrong(request.server, user.id);
      await rateLimiter.reset(limitKey);
      const state = grantSudo(request, user.id);
      // Sudo lives in the session: its event commits with the session write (on send), or not at all.
      const event = {
        userId: user.id,
        type: 'sudo_elevated' as const,
        ...originOf(request),
        detail: { factor: factor.id },
      };
      request.session.alongWithSave(sessionEvent(request.server.clock, event));
      const next = safeNext(body.next) ?? takeNext(request, user.id) ?? '/';
      request.session.delete(NEXT_KEY);
      return respond(request, reply, {
        action: 'sudo.verified',
        status: 'success',
        message: 'Identity confirmed.',
        redirectTo: next,
        data: { expires_at: state.expiresAt },
      });
    },
  );

  app.post(
    '/sudo/exit',
    { config: { action: 'sudo.exit', page: sudoPage, pageProps: sudoPageProps } },
    async (request, reply) => {
      requireSessionUser(request);
      endSudo(request);
      return respond(request, reply, {
        action: 'sudo.exit',
        status: 'success',
        message: 'You left sudo mode.',
        data: { active: false },
        redirectTo: '/',
      });
    },
  );
}

async function sudoPageProps(request: FastifyRequest): Promise<SudoPageProps> {
  const user = request.caller?.user;
  const state = activeSudo(request);
  const factors = user ? await sudoFactorsFor(request, user) : [];
  return {
    factors,
    pluginFactors: request.server.factorRegistry.pluginFactors(factors),
    state: state ? { expiresAt: state.expiresAt } : null,
    ttlSeconds: request.server.config.limits.sudoTtl,
  };
}
