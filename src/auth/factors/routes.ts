import type { FastifyInstance, FastifyRequest } from 'fastify';
import { respond } from '../../http/respond.ts';
import { requireSessionUser } from '../core/caller.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { FieldReader } from '../../http/fields.ts';
import { requireSudo } from '../sudo/guard.ts';
import { twoFactorPage } from './pages.ts';
import { enrollableFactors, enrolledFactorIds } from './registry.ts';
import { deleteRecoveryCodes, issueRecoveryCodes } from './recovery.ts';
import { settingsData } from './settings.ts';
import { passkeyAssets } from './assets.ts';
import type { EnrollableFactor } from './types.ts';

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function readFactor(request: FastifyRequest): EnrollableFactor {
  const fields = new FieldReader(request.body);
  const id = fields.string('factor', { required: true, max: 32 });
  fields.throwIfInvalid();
  const factor = enrollableFactors.find((f) => f.id === id);
  if (!factor) throw new ValidationError({ factor: 'Choose "totp" or "passkey".' });
  return factor;
}

/** Two-factor settings: enrollment, removal, recovery codes, and the `two_factor` sign-in step. */
export async function factorsRoutes(app: FastifyInstance): Promise<void> {
  await passkeyAssets(app);
  const page = twoFactorPage;
  const pageProps = async (request: FastifyRequest) => {
    const user = request.caller?.user;
    return { settings: user ? await settingsData(request, user) : {} };
  };

  app.get(
    '/two-factor',
    { config: { action: 'two_factor.index', page, pageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      return respond(request, reply, {
        action: 'two_factor.index',
        status: 'success',
        data: await settingsData(request, user),
        render: true,
      });
    },
  );

  app.post(
    '/two-factor/enroll/start',
    { config: { action: 'two_factor.enroll.start', page, pageProps }, preHandler: requireSudo },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const factor = readFactor(request);
      const data = await factor.enrollStart(request, user, bodyOf(request));
      return respond(request, reply, {
        action: 'two_factor.enroll.start',
        status: 'success',
        message:
          factor.id === 'totp'
            ? 'Scan the QR code, then enter a code from the app.'
            : 'Follow your browser to create a passkey.',
        data,
        render: true,
      });
    },
  );

  app.post(
    '/two-factor/enroll/confirm',
    { config: { action: 'two_factor.enroll.confirm', page, pageProps }, preHandler: requireSudo },
    async (request, reply) => {
      const services = request.server;
      const user = requireSessionUser(request);
      const factor = readFactor(request);
      const body = bodyOf(request);
      const proof = body.proof ?? body.code;
      if (proof === undefined || proof === null || proof === '')
        throw new ValidationError({ proof: 'Proof is required.' });
      // Wrong proofs at enrollment count like sudo failures: a guessing limit per user.
      const { sudoMaxFailures, sudoFailureWindow } = services.config.limits;
      const limitKey = `enroll-confirm:${user.id}`;
      // Counted before the check (parallel guesses cannot slip past a read-only check together).
      await services.rateLimiter.consume(limitKey, sudoMaxFailures, sudoFailureWindow);
      const first = (await enrolledFactorIds(services, user.id)).length === 0;
      if (!(await factor.enrollConfirm(request, user, proof, body))) {
        throw new ValidationError(
          { proof: 'That proof was not accepted. Please try again.' },
          'Validation failed.',
          {
            data: { factor: factor.id },
          },
        );
      }
      await services.rateLimiter.reset(limitKey);
      const codes = first ? await issueRecoveryCodes(services, user.id) : undefined;
      const data: Record<string, unknown> = { factor: factor.id, ...(await settingsData(request, user)) };
      if (codes) data.recovery_codes = codes;
      return respond(request, reply, {
        action: 'two_factor.enroll.confirm',
        status: 'success',
        message: factor.id === 'totp' ? 'Authenticator app enabled.' : 'Passkey added.',
        data,
        redirectTo: '/two-factor',
        // Recovery codes are shown once: a form client sees them on this response's page.
        render: codes !== undefined,
      });
    },
  );

  app.post(
    '/two-factor/unenroll',
    { config: { action: 'two_factor.unenroll', page, pageProps }, preHandler: requireSudo },
    async (request, reply) => {
      const services = request.server;
      const user = requireSessionUser(request);
      const factor = readFactor(request);
      if (!(await factor.unenroll(request, user, bodyOf(request))))
        throw new NotFoundError(`${factor.label} is not enrolled.`);
      // Without any factor left, two-factor is off and the recovery codes go with it.
      if ((await enrolledFactorIds(services, user.id)).length === 0)
        await deleteRecoveryCodes(services, user.id);
      return respond(request, reply, {
        action: 'two_factor.unenroll',
        status: 'success',
        message: factor.id === 'totp' ? 'Authenticator app removed.' : 'Passkey removed.',
        data: { factor: factor.id, ...(await settingsData(request, user)) },
        redirectTo: '/two-factor',
      });
    },
  );

  app.post(
    '/two-factor/recovery-codes',
    { config: { action: 'two_factor.recovery_codes', page, pageProps }, preHandler: requireSudo },
    async (request, reply) => {
      const services = request.server;
      const user = requireSessionUser(request);
      if ((await enrolledFactorIds(services, user.id)).length === 0)
        throw new NotFoundError('Recovery codes come with an enrolled two-factor method.');
      const codes = await issueRecoveryCodes(services, user.id);
      return respond(request, reply, {
        action: 'two_factor.recovery_codes',
        status: 'success',
        message: 'New recovery codes were created; the old ones no longer work.',
        data: { ...(await settingsData(request, user)), recovery_codes: codes },
        redirectTo: '/two-factor',
        render: true,
      });
    },
  );
}
