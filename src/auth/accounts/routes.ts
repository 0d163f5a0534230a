import { Type } from '@sinclair/typebox';
import {
  ValidationError,
  publicUser,
  beginSignIn,
  signInAnswer,
  endSession,
  emailSendLimits,
  defineEndpoint,
  type EndpointInput,
  type EndpointResult,
  Envelope,
  pageEndpoint,
  NEW_PASSWORD_FIELDS,
  newPasswordProblems,
  type UserRecord,
  USERNAME,
  changeWithEvent,
  originOf,
  sessionEvent,
  notify,
  passwordChanged,
  pluginOptions,
  type CitadelServices,
  type Text,
  coreMessages,
} from '../../plugin-api.ts';
import { verifyPasswordLogin } from './login.ts';
import {
  consumePasswordResetToken,
  isPasswordResetTokenUsable,
  sendPasswordReset,
} from './password-reset.ts';
import {
  forgotPasswordPage,
  loginPage,
  registerPage,
  resetPasswordPage,
  type ResetPasswordPageProps,
  type SignInPageProps,
} from './pages.ts';
import { homePage } from './home-page.ts';
import { ACTIVATION_PENDING, mailOwnerOfExistingAddress } from './hidden-registration.ts';
import { accountsMessages } from './messages/index.ts';

/** Registration, password sign-in, sign-out, /me, and password reset. */

/** A form page's GET: HTML for browsers, a small info envelope for JSON clients. */
const INFO = Envelope();
/** An answer that may be a sign-in or "one more step" (the pipeline holds the sign-in). */
const SIGN_IN = Envelope({ user: 'optional' });

const EMAIL = Type.String({ format: 'email', maxLength: 191 });
const RESET_TOKEN = Type.String({ maxLength: 256 });
const INVALID_RESET_LINK = accountsMessages.text('error.invalidResetLink');

const home = defineEndpoint({
  method: 'GET',
  path: '/',
  action: 'home',
  auth: 'optional',
  summary: 'Home page; JSON clients get the signed-in user, if any',
  responses: { 200: Envelope({ user: 'optional' }) },
  page: homePage,
  async handler({ caller }) {
    return {
      status: 'info',
      user: caller?.via === 'session' ? publicUser(caller.user) : undefined,
      render: true,
    };
  },
});

const me = defineEndpoint({
  method: 'GET',
  path: '/me',
  action: 'me',
  auth: 'session',
  summary: 'The signed-in user (session or bearer token)',
  responses: { 200: Envelope({ user: 'required' }) },
  // Plugins add fields beside `user` by an after hook (the organizations plugin: `organization`).
  async handler({ caller }) {
    return { status: 'success', user: publicUser(caller.user), render: true };
  },
});

const login = defineEndpoint({
  method: 'POST',
  path: '/login',
  action: 'login.attempt',
  auth: 'anonymous',
  summary: 'Sign in with email or username and password',
  body: Type.Object({
    email: Type.Optional(Type.String({ maxLength: 191 })),
    username: Type.Optional(Type.String({ maxLength: 191 })),
    password: Type.String({ 'x-raw': true, maxLength: 1024 }),
    remember: Type.Optional(Type.Boolean()),
  }),
  refine: (body) =>
    body.email === undefined && body.username === undefined
      ? { email: accountsMessages.text('error.identifierRequired') }
      : undefined,
  failures: [401, 403, 429],
  responses: { 200: SIGN_IN },
  page: loginPage,
  pageProps: signInPageProps,
  async handler(request) {
    const { body, ip } = request;
    const user = await verifyPasswordLogin(request, {
      identifier: (body.email ?? body.username)!,
      password: body.password,
      ip,
      userAgent: originOf(request).userAgent,
    });
    const result = await beginSignIn(request, user, {
      purpose: 'login',
      remember: body.remember === true,
    });
    return signInAnswer(result, {
      status: 'success',
      message: accountsMessages.text('answer.signedIn'),
      user: publicUser(user),
      redirect_to: '/',
    });
  },
});

const logout = defineEndpoint({
  method: 'POST',
  path: '/logout',
  aliases: [{ method: 'GET', path: '/logout' }],
  action: 'logout',
  auth: 'optional',
  summary: 'Sign out (a bearer token revokes itself)',
  responses: { 200: INFO },
  async handler(request) {
    const { caller, services } = request;
    if (caller?.via === 'token') {
      await changeWithEvent(
        services,
        {
          userId: caller.user.id,
          type: 'token_revoked',
          ...originOf(request),
          detail: { token_id: caller.token.id, via: 'logout' },
        },
        (db) => services.tokens.revoke(caller.user.id, caller.token.id, db),
      );
    } else {
      await endSession(request);
      // Committed with the end of the session (before the answer), or not at all.
      if (caller) {
        const event = { userId: caller.user.id, type: 'sign_out' as const, ...originOf(request) };
        request.session.alongWithSave(sessionEvent(services.clock, event));
      }
    }
    return { status: 'success', message: accountsMessages.text('answer.signedOut'), redirect_to: '/login' };
  },
});

const register = defineEndpoint({
  method: 'POST',
  path: '/register',
  action: 'register.attempt',
  auth: 'anonymous',
  summary: 'Create an account (then signed in, or one more step such as activation)',
  body: Type.Object({
    username: Type.String({
      minLength: 3,
      maxLength: 30,
      pattern: USERNAME.source,
      'x-pattern-message': 'Username may contain only letters, digits and spaces.',
      'x-pattern-message-key': 'accounts.error.usernamePattern',
    }),
    email: EMAIL,
    ...NEW_PASSWORD_FIELDS,
  }),
  refine: (body, services) => newPasswordProblems(body, services.config.limits),
  // Counted before any lookup, invalid attempts included: no cheap probing of addresses.
  rateLimit: emailSendLimits('register', { countInvalid: true }),
  responses: { 200: SIGN_IN, 201: Envelope({ user: 'required' }) },
  page: registerPage,
  pageProps: signInPageProps,
  async handler(request) {
    const { body, services } = request;
    const { username, email, password } = body;
    const errors: Record<string, Text> = {};
    if (await services.users.findByUsername(username))
      errors.username = accountsMessages.text('error.usernameTaken');
    // REGISTER_HIDE_EXISTING: a known address is not an error; its owner is mailed instead.
    const hideExisting = services.config.registerHideExisting;
    let knownOwner = await services.users.findByEmail(email);
    if (knownOwner && !hideExisting) errors.email = accountsMessages.text('error.emailTaken');
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const answerForKnownAddress = async (owner: UserRecord): Promise<EndpointResult> => {
      await mailOwnerOfExistingAddress(request, owner);
      return { ...ACTIVATION_PENDING };
    };
    if (knownOwner) {
      // The same work as a real registration (the hash dominates), so the timing class matches.
      await services.passwords.hash(password);
      return answerForKnownAddress(knownOwner);
    }

    const needsActivation = services.config.registerActions.includes('email_activation');
    const user = await services.users
      .create({
        username,
        email,
        passwordHash: await services.passwords.hash(password),
        active: !needsActivation,
      })
      .catch(async (error: unknown) => {
        // Two registrations raced past the checks above: the unique index decides.
        knownOwner = await services.users.findByEmail(email);
        if (knownOwner && hideExisting) return null;
        if (knownOwner) throw new ValidationError({ email: accountsMessages.text('error.emailTaken') });
        if (await services.users.findByUsername(username))
          throw new ValidationError({ username: accountsMessages.text('error.usernameTaken') });
        throw error;
      });

    if (user === null) return answerForKnownAddress(knownOwner!);

    const result = await beginSignIn(request, user, { purpose: 'register', remember: false });
    if (!result.signedIn) {
      // Hiding known addresses, the answer carries no user: a known address has none to show.
      return { ...ACTIVATION_PENDING, ...(hideExisting ? {} : { user: publicUser(user) }) };
    }
    return {
      status: 'success',
      statusCode: 201,
      message: accountsMessages.text('answer.created'),
      user: publicUser(user),
      redirect_to: '/',
    };
  },
});

const forgotPassword = defineEndpoint({
  method: 'POST',
  path: '/forgot-password',
  action: 'forgot_password.send',
  auth: 'anonymous',
  summary: 'Mail a password-reset link (the same answer for any address)',
  body: Type.Object({ email: EMAIL }),
  rateLimit: emailSendLimits('forgot-password', { countInvalid: false }),
  responses: { 200: INFO },
  page: forgotPasswordPage,
  async handler(request) {
    const { body, services } = request;
    // Sent after the response is on its way: the answer and its timing are the same for any address.
    services.emails.afterResponse(
      sendPasswordReset(services, body.email, request.language.locale).catch((error: unknown) =>
        request.log.error({ err: error }, 'could not send the password reset email'),
      ),
    );
    return {
      status: 'success',
      message: accountsMessages.text('answer.resetSent'),
      redirect_to: '/login',
    };
  },
});

const showResetPassword = defineEndpoint({
  method: 'GET',
  path: '/reset-password',
  action: 'reset_password.show',
  auth: 'optional',
  summary: 'The reset form of a link; says whether its token is usable',
  query: Type.Object({ token: Type.Optional(Type.String({ maxLength: 256 })) }),
  secrets: ['token'],
  responses: { 200: Envelope({ data: Type.Object({ token_valid: Type.Boolean() }) }) },
  page: resetPasswordPage,
  pageProps: resetPasswordPageProps,
  async handler({ query, services }) {
    const usable = query.token !== undefined && (await isPasswordResetTokenUsable(services, query.token));
    return {
      status: usable ? 'info' : 'error',
      // An error envelope carries an error status, like the POST with the same token would.
      statusCode: usable ? 200 : 422,
      message: usable ? undefined : coreMessages.text('error.validation'),
      data: { token_valid: usable },
      errors: usable ? undefined : { token: INVALID_RESET_LINK },
      render: true,
    };
  },
});

const resetPassword = defineEndpoint({
  method: 'POST',
  path: '/reset-password',
  action: 'reset_password.attempt',
  auth: 'anonymous',
  summary: "Set a new password with a reset link's token; every session of the account ends",
  body: Type.Object({ token: RESET_TOKEN, ...NEW_PASSWORD_FIELDS }),
  refine: (body, services) => newPasswordProblems(body, services.config.limits),
  secrets: ['token'],
  responses: { 200: INFO },
  page: resetPasswordPage,
  pageProps: resetPasswordPageProps,
  async handler(request) {
    const { body, services, ip } = request;
    const userId = await consumePasswordResetToken(services, body.token);
    if (userId === null) throw new ValidationError({ token: INVALID_RESET_LINK });

    const hash = await services.passwords.hash(body.password);
    // A pending email change (perhaps asked for by whoever knew the old password) ends too.
    await changeWithEvent(services, { userId, type: 'password_reset', ...originOf(request) }, async (db) => {
      await services.users.setPasswordHash(userId, hash, db);
      await passwordChanged(services, db, userId);
    });
    // The reset link was read in the account's mailbox.
    await services.users.markEmailVerified(userId);
    const owner = await services.users.findById(userId);
    if (owner)
      void notify(services, owner, 'password_reset', {
        userAgent: originOf(request).userAgent,
        ip,
        locale: request.language.locale,
      });
    // A reset ends every session and remember-me token of the account, this browser's included.
    await services.sessions.destroyForUser(userId);
    await services.remember.revokeAllForUser(userId);
    if (request.session.userId === userId) request.session.clear();
    return {
      status: 'success',
      message: accountsMessages.text('answer.passwordReset'),
      redirect_to: '/login',
    };
  },
});

export const accountEndpoints = [
  home,
  me,
  pageEndpoint({
    path: '/login',
    action: 'login.show',
    summary: 'The sign-in form',
    page: loginPage,
    pageProps: signInPageProps,
  }),
  login,
  logout,
  pageEndpoint({
    path: '/register',
    action: 'register.show',
    summary: 'The registration form',
    page: registerPage,
    pageProps: signInPageProps,
  }),
  register,
  pageEndpoint({
    path: '/forgot-password',
    action: 'forgot_password.show',
    summary: 'The forgotten-password form',
    page: forgotPasswordPage,
  }),
  forgotPassword,
  showResetPassword,
  resetPassword,
] as const;

/**
 * The social plugin's providers, for the sign-in buttons: read from its options by id (capabilities
 * do not import each other); none when that plugin is left out.
 */
function socialProviders(services: CitadelServices): readonly { id: string; label: string }[] | undefined {
  return pluginOptions<{ providers: readonly { id: string; label: string }[] }>(services, 'social')
    ?.providers;
}

function signInPageProps({ services }: EndpointInput): SignInPageProps {
  const { passwordMinLength, passwordMaxLength } = services.config.limits;
  return {
    providers: (socialProviders(services) ?? []).map(({ id, label }) => ({ id, label })),
    passwordLength: { passwordMinLength, passwordMaxLength },
  };
}

function resetPasswordPageProps(input: EndpointInput): ResetPasswordPageProps {
  // The raw input: the page is shown again after a refused one too.
  const query = (input.query ?? {}) as Record<string, unknown>;
  const body = (input.body ?? {}) as Record<string, unknown>;
  const token = typeof body.token === 'string' ? body.token : query.token;
  return { token: typeof token === 'string' ? token : '' };
}
