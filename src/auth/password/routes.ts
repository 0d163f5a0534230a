import { Type } from '@sinclair/typebox';
import {
  defineEndpoint,
  type EndpointInput,
  Envelope,
  setRememberCookie,
  requireSudo,
  sudoFactorsFor,
  NEW_PASSWORD_FIELDS,
  newPasswordProblems,
  changeWithEvent,
  originOf,
  passwordChanged,
  notify,
} from '../../plugin-api.ts';
import { setPasswordPage, type SetPasswordPageProps } from './pages.ts';
import { passwordMessages } from './messages/index.ts';

const HasPassword = Type.Object({ has_password: Type.Boolean() });

function setPasswordPageProps({ caller }: EndpointInput): SetPasswordPageProps {
  return { hasPassword: caller?.via === 'session' && caller.user.password_hash !== null };
}

/** GET /set-password: whether the session's user has a password yet (social sign-up: not yet). */
const showSetPassword = defineEndpoint({
  method: 'GET',
  path: '/set-password',
  action: 'password.show',
  auth: 'session',
  bearer: false,
  summary: 'Whether the account has a password',
  responses: { 200: Envelope({ data: HasPassword }) },
  page: setPasswordPage,
  pageProps: setPasswordPageProps,
  async handler({ caller }) {
    return { status: 'info', data: { has_password: caller.user.password_hash !== null }, render: true };
  },
});

/**
 * POST /set-password: a user without a password (signed up with a provider) creates one; a user
 * who has one replaces it only in sudo mode. A first password needs sudo too when the user has any
 * factor: otherwise whoever holds the session could set one and use it as a sudo proof.
 * Either way every other session of the account ends.
 * Session callers only: a bearer token never changes a password.
 */
const setPassword = defineEndpoint({
  method: 'POST',
  path: '/set-password',
  action: 'password.set',
  // Sudo depends on the account (a password or a factor to prove): checked by the handler.
  auth: 'session',
  impersonation: 'forbidden',
  bearer: false,
  summary: 'Set a first password, or change it (sudo when the account has a password or a factor)',
  body: Type.Object(NEW_PASSWORD_FIELDS),
  // The configured length limits, the common-password list and the confirmation.
  refine: (body, services) => newPasswordProblems(body, services.config.limits),
  failures: [403],
  responses: { 200: Envelope({ data: HasPassword }) },
  page: setPasswordPage,
  pageProps: setPasswordPageProps,
  async handler(request) {
    const { body, caller, services, ip } = request;
    const user = caller.user;
    const replacing = user.password_hash !== null;
    if (replacing || (await sudoFactorsFor(request, user)).length > 0) await requireSudo(request);
    const hash = await services.passwords.hash(body.password);
    await changeWithEvent(
      services,
      { userId: user.id, type: 'password_changed', ...originOf(request), detail: { first: !replacing } },
      async (db) => {
        await services.users.setPasswordHash(user.id, hash, db);
        // A pending email change (perhaps asked for by whoever knew the old password) ends too.
        await passwordChanged(services, db, user.id);
      },
    );
    void notify(services, user, 'password_changed', {
      userAgent: originOf(request).userAgent,
      ip,
      locale: request.language.locale,
    });

    // Whoever else held a session or a remember-me cookie of this account is out; this browser
    // stays signed in, under a fresh session id.
    await services.sessions.destroyForUser(user.id, request.session.idHash ?? undefined);
    await services.remember.revokeAllForUser(user.id);
    setRememberCookie(request, null);
    request.session.regenerate();
    return {
      status: 'success',
      message: passwordMessages.text(replacing ? 'answer.changed' : 'answer.set'),
      data: { has_password: true },
      redirect_to: '/',
    };
  },
});

/** Setting or changing the password of a signed-in account. */
export const passwordEndpoints = [showSetPassword, setPassword] as const;
