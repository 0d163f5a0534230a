import { Type } from '@sinclair/typebox';
import {
  NotFoundError,
  ValidationError,
  defineEndpoint,
  type EndpointInput,
  type RequestContext,
  Envelope,
  type UserRecord,
  changeWithEvent,
  originOf,
  notify,
  isSudoActive,
  type EnrollableFactor,
  coreMessages,
} from '../../plugin-api.ts';
import { twoFactorPage, type TwoFactorPageProps } from './pages.ts';
import { pendingTotpEnrollment, totpFactor } from './totp.ts';
import { enrollableFactors, enrolledFactorIds } from './registry.ts';
import { deleteRecoveryCodes, issueRecoveryCodes, RECOVERY_CODE_COUNT } from './recovery.ts';
import { settingsData } from './settings.ts';
import { lockUserForFactorChange, TwoFactorRequiredError } from './last-factor.ts';
import { factorsOptions } from './options.ts';
import { webAuthnJson } from './schemas.ts';
import { factorsMessages } from './messages/index.ts';

/** Two-factor settings: enrollment, removal and recovery codes (all for a browser session). */

type FactorChange = 'factor_enrolled' | 'factor_removed';

/** The event of an enrolled or removed factor, for `changeWithEvent` (no secret in it). */
function factorEvent(request: RequestContext, user: UserRecord, type: FactorChange, factorId: string) {
  return { userId: user.id, type, ...originOf(request), detail: { factor: factorId } };
}

/** The notification of an enrolled or removed factor, once the change and its event committed. */
function notifyFactorChange(request: RequestContext, user: UserRecord, type: FactorChange, factorId: string) {
  const origin = originOf(request);
  const t = factorsMessages.in(request.language);
  void notify(request.services, user, type, {
    subject: t(factorId === 'totp' ? 'factor.totp' : 'factor.passkey'),
    userAgent: origin.userAgent,
    ip: origin.ip,
    locale: request.language.locale,
  });
}

/** The factor a request names (the schema admits only the enrollable ones). */
function factorNamed(id: string): EnrollableFactor {
  return enrollableFactors.find((f) => f.id === id)!;
}

/** `factor`: the enrollable factor a request is about. */
const FACTOR = Type.Union(
  enrollableFactors.map((f) => Type.Literal(f.id)),
  {
    'x-message': 'Choose "totp" or "passkey".',
    'x-message-key': 'factors.enroll.chooseFactor',
    description: 'The factor: `totp` or `passkey`.',
  },
);

/** A passkey's name (given at enroll/start or enroll/confirm); cut to 100 characters. */
const PASSKEY_NAME = Type.Optional(
  Type.String({ description: 'Passkeys: a name for the new key (cut to 100 characters).' }),
);

/** What GET /two-factor shows, and every change answers with (`settingsData`). */
const SETTINGS = {
  enrolled_factors: Type.Array(Type.String(), { description: 'A subset of `["totp", "passkey"]`.' }),
  available_factors: Type.Array(Type.Object({ id: Type.String(), label: Type.String() })),
  recovery_codes_remaining: Type.Integer(),
  passkeys: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The credential id (for `credential_id` of unenroll).' }),
      name: Type.String(),
      created_at: Type.String(),
      last_used_at: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
};

const RECOVERY_CODES = Type.Array(Type.String(), {
  description: 'Single-use recovery codes, shown once (stored hashed).',
});

async function pageProps(request: EndpointInput): Promise<TwoFactorPageProps> {
  const { caller } = request;
  const user = caller?.via === 'session' ? caller.user : undefined;
  return {
    settings: user ? await settingsData(request, user) : {},
    pendingTotp: user ? await pendingTotpEnrollment(request, user) : undefined,
    sudoActive: await isSudoActive(request),
  };
}

const index = defineEndpoint({
  method: 'GET',
  path: '/two-factor',
  action: 'two_factor.index',
  auth: 'session',
  bearer: false,
  summary: 'Two-factor settings: enrolled factors, passkeys, recovery codes left',
  query: Type.Object({
    setup: Type.Optional(
      Type.String({
        description:
          'HTML only: `totp` starts the authenticator app setup at once (back from the sudo detour).',
      }),
    ),
  }),
  responses: { 200: Envelope({ data: Type.Object(SETTINGS) }) },
  page: twoFactorPage,
  pageProps,
  async handler(request) {
    const { query, caller, services } = request;
    const user = caller.user;
    // Back from the sudo detour of "Set up authenticator app": show the QR code at once, no second click.
    if (
      query.setup === 'totp' &&
      request.client === 'form' &&
      (await isSudoActive(request)) &&
      !(await enrolledFactorIds(services, user.id)).includes('totp')
    ) {
      return {
        action: 'two_factor.enroll.start',
        status: 'success',
        data: await totpFactor.enrollStart(request, user, {}),
        render: true,
      };
    }
    const codes = request.client === 'form' ? takeCodesForPage(request) : undefined;
    const data = await settingsData(request, user);
    return { status: 'success', data: codes ? { ...data, recovery_codes: codes } : data, render: true };
  },
});

const enrollStart = defineEndpoint({
  method: 'POST',
  path: '/two-factor/enroll/start',
  action: 'two_factor.enroll.start',
  auth: 'sudo',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Start adding a factor: a TOTP secret and QR code, or passkey creation options',
  body: Type.Object({ factor: FACTOR, name: PASSKEY_NAME }),
  failures: [409],
  responses: {
    200: Envelope({
      data: Type.Object({
        factor: Type.String(),
        secret: Type.Optional(Type.String({ description: 'TOTP: the Base32 secret (160 bits).' })),
        qr_uri: Type.Optional(Type.String({ description: 'TOTP: the otpauth:// URI.' })),
        qr_image: Type.Optional(Type.String({ description: 'TOTP: the QR code as an SVG data URI.' })),
        options: Type.Optional(
          webAuthnJson('Passkey: the WebAuthn creation options (PublicKeyCredentialCreationOptionsJSON).'),
        ),
      }),
    }),
  },
  page: twoFactorPage,
  pageProps,
  async handler(request) {
    const { body, caller } = request;
    const factor = factorNamed(body.factor);
    const data = await factor.enrollStart(request, caller.user, body);
    return {
      status: 'success',
      message: factorsMessages.text(factor.id === 'totp' ? 'answer.totpStart' : 'answer.passkeyStart'),
      data,
      render: true,
    };
  },
});

/**
 * New recovery codes for a form client, sealed in the session between the POST that made them and
 * the GET of /two-factor it is redirected to (Post/Redirect/Get), which shows them once.
 */
const SHOWN_CODES_KEY = 'two_factor_new_codes';
const SHOWN_CODES_SEAL = 'two-factor-new-codes';

function keepCodesForPage(request: RequestContext, codes: string[]): void {
  request.session.set(
    SHOWN_CODES_KEY,
    request.services.secrets.encrypt(SHOWN_CODES_SEAL, JSON.stringify(codes)),
  );
}

/** The codes kept by `keepCodesForPage`, removed from the session as they are read. */
function takeCodesForPage(request: RequestContext): string[] | undefined {
  const sealed = request.session.get<string>(SHOWN_CODES_KEY);
  if (sealed === undefined) return undefined;
  request.session.delete(SHOWN_CODES_KEY);
  try {
    return JSON.parse(request.services.secrets.decrypt(SHOWN_CODES_SEAL, sealed)) as string[];
  } catch {
    return undefined;
  }
}

/** Wrong proofs at enrollment count like sudo failures: a guessing limit per user. */
const ENROLL_CONFIRM_LIMIT = 'enroll-confirm';

const enrollConfirm = defineEndpoint({
  method: 'POST',
  path: '/two-factor/enroll/confirm',
  action: 'two_factor.enroll.confirm',
  auth: 'sudo',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Finish adding a factor with its proof; the first factor also gives recovery codes',
  body: Type.Object({
    factor: FACTOR,
    proof: Type.Optional(
      Type.Union(
        [
          Type.String(),
          Type.Number(),
          webAuthnJson("Passkey: the browser's registration response (RegistrationResponseJSON)."),
        ],
        {
          description:
            "TOTP: the 6-digit code. Passkey: the browser's registration response, as an object or as JSON text.",
        },
      ),
    ),
    code: Type.Optional(
      Type.Union([Type.String(), Type.Number()], { description: 'TOTP: the code, instead of `proof`.' }),
    ),
    name: PASSKEY_NAME,
  }),
  refine: (body) =>
    body.proof === undefined && body.code === undefined
      ? { proof: factorsMessages.text('error.proofRequired') }
      : undefined,
  // Counted before the check (parallel guesses cannot slip past a read-only check together); a
  // request refused as invalid is not a guess.
  rateLimit: {
    name: ENROLL_CONFIRM_LIMIT,
    max: (services) => factorsOptions(services).confirmMaxFailures,
    windowSeconds: (services) => factorsOptions(services).confirmFailureWindowSeconds,
    per: ({ errors, caller }) =>
      Object.keys(errors).length === 0 && caller ? String(caller.user.id) : undefined,
  },
  failures: [409],
  responses: {
    200: Envelope({
      data: Type.Object({
        factor: Type.String(),
        ...SETTINGS,
        recovery_codes: Type.Optional(RECOVERY_CODES),
      }),
    }),
  },
  page: twoFactorPage,
  pageProps,
  async handler(request) {
    const { body, caller, services } = request;
    const user = caller.user;
    const factor = factorNamed(body.factor);
    const proof = body.proof ?? body.code;
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
        { proof: factorsMessages.text('error.notAccepted') },
        coreMessages.text('error.validation'),
        { data: { factor: factor.id } },
      );
    }
    await services.rateLimiter.reset(`${ENROLL_CONFIRM_LIMIT}:${user.id}`);
    notifyFactorChange(request, user, 'factor_enrolled', factor.id);
    const data: Record<string, unknown> = { factor: factor.id, ...(await settingsData(request, user)) };
    if (codes) data.recovery_codes = codes;
    // A form client is redirected (303) to /two-factor, which shows the codes once.
    if (codes && request.client === 'form') keepCodesForPage(request, codes);
    return {
      status: 'success',
      message: factorsMessages.text(factor.id === 'totp' ? 'answer.totpEnabled' : 'answer.passkeyAdded'),
      data,
      redirect_to: '/two-factor',
    };
  },
});

const unenroll = defineEndpoint({
  method: 'POST',
  path: '/two-factor/unenroll',
  action: 'two_factor.unenroll',
  auth: 'sudo',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Remove a factor (one passkey by credential_id, or every passkey)',
  description:
    'Nothing to remove: 404. With REQUIRE_TWO_FACTOR=1, removing the last factor is refused: ' +
    '409 with `action: "two_factor.required"` and `data.factor`.',
  body: Type.Object({
    factor: FACTOR,
    // Exactly as sent: an id with stray spaces names no key (trimmed to nothing, it would name all).
    credential_id: Type.Optional(
      Type.String({
        'x-raw': true,
        title: 'Credential id',
        description: 'Passkey: the one key to remove (`passkeys[].id`); without it, every passkey.',
      }),
    ),
  }),
  failures: [404, 409],
  responses: { 200: Envelope({ data: Type.Object({ factor: Type.String(), ...SETTINGS }) }) },
  page: twoFactorPage,
  pageProps,
  async handler(request) {
    const { body, caller, services } = request;
    const user = caller.user;
    const factor = factorNamed(body.factor);
    const event = factorEvent(request, user, 'factor_removed', factor.id);
    const required = factorsOptions(services).requireTwoFactor;
    let removed: boolean;
    try {
      removed = await factor.unenroll(request, user, body, (write) =>
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
      if (error instanceof TwoFactorRequiredError && request.client === 'form') {
        return {
          action: error.options.action,
          status: 'error',
          statusCode: error.statusCode,
          message: error.text,
          errors: error.options.errors,
          data: error.options.data,
          render: true,
        };
      }
      throw error;
    }
    if (!removed)
      throw new NotFoundError(
        factorsMessages.text(factor.id === 'totp' ? 'error.totpNotEnrolled' : 'error.passkeyNotEnrolled'),
      );
    notifyFactorChange(request, user, 'factor_removed', factor.id);
    return {
      status: 'success',
      message: factorsMessages.text(factor.id === 'totp' ? 'answer.totpRemoved' : 'answer.passkeyRemoved'),
      data: { factor: factor.id, ...(await settingsData(request, user)) },
      redirect_to: '/two-factor',
    };
  },
});

const recoveryCodes = defineEndpoint({
  method: 'POST',
  path: '/two-factor/recovery-codes',
  action: 'two_factor.recovery_codes',
  auth: 'sudo',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Replace the recovery codes with a new set (shown once)',
  description: 'No factor enrolled: 404.',
  failures: [404],
  responses: {
    200: Envelope({ data: Type.Object({ ...SETTINGS, recovery_codes: RECOVERY_CODES }) }),
  },
  page: twoFactorPage,
  pageProps,
  async handler(request) {
    const { caller, services } = request;
    const user = caller.user;
    if ((await enrolledFactorIds(services, user.id)).length === 0)
      throw new NotFoundError(factorsMessages.text('error.noRecoveryCodes'));
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
    if (request.client === 'form') keepCodesForPage(request, codes);
    return {
      status: 'success',
      message: factorsMessages.text('answer.codesCreated'),
      data: { ...(await settingsData(request, user)), recovery_codes: codes },
      redirect_to: '/two-factor',
    };
  },
});

/** Two-factor settings: enrollment, removal, recovery codes. */
export const twoFactorEndpoints = [index, enrollStart, enrollConfirm, unenroll, recoveryCodes] as const;
