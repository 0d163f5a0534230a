import type { FastifyInstance, FastifyRequest } from 'fastify';
import { renderPage, respond } from '../../http/respond.ts';
import { outcomeForError } from '../../http/error-handler.ts';
import { requireSessionUser } from '../core/caller.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { FieldReader } from '../../http/fields.ts';
import { requireSudo } from '../sudo/guard.ts';
import { twoFactorPage, type TwoFactorPageProps } from './pages.ts';
import type { UserRecord } from '../core/users.ts';
import { changeWithEvent, originOf } from '../account-center/events.ts';
import { notify } from '../account-center/notify.ts';
import { describeDevice } from '../account-center/device.ts';
import { passkeyLoginRoutes } from './passkey-login.ts';
import { isSudoActive } from '../sudo/guard.ts';
import { clientKind } from '../../http/negotiation.ts';
import { pendingTotpEnrollment, totpFactor } from './totp.ts';
import { enrollableFactors, enrolledFactorIds } from './registry.ts';
import { deleteRecoveryCodes, issueRecoveryCodes, RECOVERY_CODE_COUNT } from './recovery.ts';
import { settingsData } from './settings.ts';
import { passkeyAssets } from './assets.ts';
import { lockUserForFactorChange, TwoFactorRequiredError } from './last-factor.ts';
import { accountSettings } from '../account-center/settings.ts';
import type { EnrollableFactor } from './types.ts';

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

type FactorChange = 'factor_enrolled' | 'factor_removed';

/** The event of an enrolled or removed factor, for `changeWithEvent` (no secret in it). */
function factorEvent(request: FastifyRequest, user: UserRecord, type: FactorChange, factorId: string) {
  return { userId: user.id, type, ...originOf(request), detail: { factor: factorId } };
}

/** The notification of an enrolled or removed factor, once the change and its event committed. */
function notifyFactorChange(request: FastifyRequest, user: UserRecord, type: FactorChange, label: string) {
  const origin = originOf(request);
  void notify(request.server, user, type, {
    subject: label,
    device: describeDevice(origin.userAgent),
    ip: origin.ip,
  });
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
  await passkeyLoginRoutes(app);
  const pageProps = async (request: FastifyRequest): Promise<TwoFactorPageProps> => {
    const user = request.caller?.user;
    return {
      settings: user ? await settingsData(request, user) : {},
      pendingTotp: user ? await pendingTotpEnrollment(request, user) : undefined,
      sudoActive: await isSudoActive(request),
    };
  };

  app.get(
    '/two-factor',
    { config: { action: 'two_factor.index', page, pageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      // Back from the sudo detour of "Set up authenticator app": show the QR code at once, no second click.
      const setup = (request.query as Record<string, unknown>).setup;
      if (
        setup === 'totp' &&
        clientKind(request) === 'form' &&
        (await isSudoActive(request)) &&
        !(await enrolledFactorIds(request.server, user.id)).includes('totp')
      ) {
        return respond(request, reply, {
          action: 'two_factor.enroll.start',
          status: 'success',
          data: await totpFactor.enrollStart(request, user, {}),
          render: true,
        });
      }
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
      let codes: string[] | undefined;
      // The factor, its event and (with the first factor) the recovery codes commit together.
      const stored = await factor.enrollConfirm(request, user, proof, body, (write) =>
        changeWithEvent(services, factorEvent(request, user, 'factor_enrolled', factor.id), async (db) => {
          const written = await write(db);
          if (first) codes = await issueRecoveryCodes(services, user.id, db);
          return written;
        }),
      );
      if (!stored) {
        throw new ValidationError(
          { proof: 'That proof was not accepted. Please try again.' },
          'Validation failed.',
          {
            data: { factor: factor.id },
          },
        );
      }
      await services.rateLimiter.reset(limitKey);
      notifyFactorChange(request, user, 'factor_enrolled', factor.label);
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
      const event = factorEvent(request, user, 'factor_removed', factor.id);
      const required = accountSettings(services.config).requireTwoFactor;
      let removed: boolean;
      try {
        removed = await factor.unenroll(request, user, bodyOf(request), (write) =>
          changeWithEvent(
            services,
            event,
            async (db) => {
              // REQUIRE_TWO_FACTOR: removals of one user's factors take turns (see last-factor.ts).
              if (required) await lockUserForFactorChange(db, services.dialect, user.id);
              const result = await write(db);
              // Without any factor left, two-factor is off and the recovery codes go with it,
              // unless it is required: then the removal is undone (409 two_factor.required).
              if (result === true && (await enrolledFactorIds(services, user.id, db)).length === 0) {
                if (required) throw new TwoFactorRequiredError(factor.id);
                await deleteRecoveryCodes(services, user.id, db);
              }
              return result;
            },
            (result) => result === true,
          ),
        );
      } catch (error) {
        // A browser sees its settings page again, with the reason, rather than an error page.
        if (error instanceof TwoFactorRequiredError && clientKind(request) === 'form')
          return renderPage(request, reply, page, outcomeForError(request, error));
        throw error;
      }
      if (!removed) throw new NotFoundError(`${factor.label} is not enrolled.`);
      notifyFactorChange(request, user, 'factor_removed', factor.label);
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
      const codes = await changeWithEvent(
        services,
        {
          userId: user.id,
          type: 'recovery_codes_regenerated',
          ...originOf(request),
          detail: { count: RECOVERY_CODE_COUNT },
        },
        (db) => issueRecoveryCodes(services, user.id, db),
      );
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
