import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FieldReader } from '../../http/fields.ts';
import { respond } from '../../http/respond.ts';
import { requireCaller } from '../core/caller.ts';
import { ValidationError } from '../../core/errors.ts';
import { publicUser } from '../core/users.ts';
import { beginSignIn } from '../pipeline/runner.ts';
import { respondToSignIn } from '../pipeline/sign-in-response.ts';
import { endSession } from '../core/sessions.ts';
import { limitEmailSends } from '../core/send-limits.ts';
import { verifyPasswordLogin } from './login.ts';
import { readNewPassword } from './password-rules.ts';
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
import type { UserRecord } from '../core/users.ts';
import { USERNAME } from './username-rule.ts';
import { changeWithEvent, originOf, sessionEvent } from '../account-center/events.ts';
import { notify } from '../account-center/notify.ts';
import { describeDevice } from '../account-center/device.ts';

/** Registration, password sign-in, sign-out, /me, and password reset. */
/**
 * GET /me's JSON answer, serialized through a schema Fastify compiles once (fast-json-stringify)
 * instead of JSON.stringify per request. Only the 200 envelope: a form client's page is a string
 * (sent as is) and errors keep the error handler's serialization. Every field of the envelope and
 * of `publicUser` is listed; anything else would be dropped, which the tests would show.
 */
const ME_RESPONSE = {
  200: {
    type: 'object',
    properties: {
      action: { type: 'string' },
      status: { type: 'string' },
      statusCode: { type: 'integer' },
      message: { type: 'string' },
      redirect_to: { type: 'string' },
      user: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          username: { type: 'string' },
          email: { type: 'string' },
          active: { type: 'boolean' },
        },
        required: ['id', 'username', 'email', 'active'],
      },
    },
    required: ['action', 'status', 'statusCode', 'user'],
  },
} as const;

export async function accountsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/', { config: { action: 'home', page: homePage } }, async (request, reply) => {
    const caller = request.caller;
    return respond(request, reply, {
      action: 'home',
      status: 'info',
      user: caller?.via === 'session' ? publicUser(caller.user) : undefined,
      render: true,
    });
  });

  app.get('/me', { config: { action: 'me' }, schema: { response: ME_RESPONSE } }, async (request, reply) => {
    const caller = requireCaller(request);
    return respond(request, reply, {
      action: 'me',
      status: 'success',
      user: publicUser(caller.user),
      render: true,
    });
  });

  app.get(
    '/login',
    { config: { action: 'login.show', page: loginPage, pageProps: signInPageProps } },
    async (request, reply) => showPage(request, reply, 'login.show'),
  );

  app.post(
    '/login',
    { config: { action: 'login.attempt', page: loginPage, pageProps: signInPageProps } },
    async (request, reply) => {
      const fields = new FieldReader(request.body);
      const email = fields.string('email', { max: 191 });
      const username = fields.string('username', { max: 191 });
      const password = fields.string('password', { required: true, raw: true, max: 1024 });
      if (email === undefined && username === undefined)
        fields.fail('email', 'Email or username is required.');
      fields.throwIfInvalid();

      const user = await verifyPasswordLogin(request, {
        identifier: (email ?? username)!,
        password: password!,
        ip: request.ip,
        userAgent: originOf(request).userAgent,
      });
      const result = await beginSignIn(request, reply, user, {
        purpose: 'login',
        remember: fields.boolean('remember'),
      });
      return respondToSignIn(request, reply, result, {
        action: 'login.attempt',
        status: 'success',
        message: 'You are signed in.',
        user: publicUser(user),
        redirectTo: '/',
      });
    },
  );

  const logout = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = request.caller;
    const services = request.server;
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
      await endSession(request, reply);
      // Committed with the end of the session (saved on send), or not at all.
      if (caller) {
        const event = { userId: caller.user.id, type: 'sign_out' as const, ...originOf(request) };
        request.session.alongWithSave(sessionEvent(services.clock, event));
      }
    }
    return respond(request, reply, {
      action: 'logout',
      status: 'success',
      message: 'You have been signed out.',
      redirectTo: '/login',
    });
  };
  app.post('/logout', { config: { action: 'logout' } }, logout);
  app.get('/logout', { config: { action: 'logout' } }, logout);

  app.get(
    '/register',
    { config: { action: 'register.show', page: registerPage, pageProps: signInPageProps } },
    async (request, reply) => showPage(request, reply, 'register.show'),
  );

  app.post(
    '/register',
    { config: { action: 'register.attempt', page: registerPage, pageProps: signInPageProps } },
    async (request, reply) => {
      const services = request.server;
      const fields = new FieldReader(request.body);
      const username = fields.string('username', {
        required: true,
        min: 3,
        max: 30,
        pattern: USERNAME,
        patternMessage: 'Username may contain only letters, digits and spaces.',
      });
      const email = fields.email('email', { required: true });
      const password = readNewPassword(fields, services.config.limits);
      await limitEmailSends(request, 'register', fields.errors.email ? undefined : email);
      if (
        username !== undefined &&
        !fields.errors.username &&
        (await services.users.findByUsername(username))
      ) {
        fields.fail('username', 'This username is already taken.');
      }
      // REGISTER_HIDE_EXISTING: a known address is not an error; its owner is mailed instead.
      const hideExisting = services.config.registerHideExisting;
      let knownOwner =
        email !== undefined && !fields.errors.email ? await services.users.findByEmail(email) : undefined;
      if (knownOwner && !hideExisting) fields.fail('email', 'This email address is already registered.');
      fields.throwIfInvalid();
      const answerForKnownAddress = async (owner: UserRecord) => {
        await mailOwnerOfExistingAddress(request, owner);
        return respond(request, reply, { ...ACTIVATION_PENDING });
      };
      if (knownOwner) {
        // The same work as a real registration (the hash dominates), so the timing class matches.
        await services.passwords.hash(password!);
        return answerForKnownAddress(knownOwner);
      }

      const needsActivation = services.config.registerActions.includes('email_activation');
      const user = await services.users
        .create({
          username: username!,
          email: email!,
          passwordHash: await services.passwords.hash(password!),
          active: !needsActivation,
        })
        .catch(async (error: unknown) => {
          // Two registrations raced past the checks above: the unique index decides.
          knownOwner = await services.users.findByEmail(email!);
          if (knownOwner && hideExisting) return null;
          if (knownOwner) throw new ValidationError({ email: 'This email address is already registered.' });
          if (await services.users.findByUsername(username!))
            throw new ValidationError({ username: 'This username is already taken.' });
          throw error;
        });

      if (user === null) return answerForKnownAddress(knownOwner!);

      const result = await beginSignIn(request, reply, user, { purpose: 'register', remember: false });
      if (!result.signedIn) {
        // Hiding known addresses, the answer carries no user: a known address has none to show.
        return respond(request, reply, {
          ...ACTIVATION_PENDING,
          ...(hideExisting ? {} : { user: publicUser(user) }),
        });
      }
      return respond(request, reply, {
        action: 'register.attempt',
        status: 'success',
        statusCode: 201,
        message: 'Your account was created and you are signed in.',
        user: publicUser(user),
        redirectTo: '/',
      });
    },
  );

  app.get(
    '/forgot-password',
    { config: { action: 'forgot_password.show', page: forgotPasswordPage } },
    async (request, reply) => showPage(request, reply, 'forgot_password.show'),
  );

  app.post(
    '/forgot-password',
    { config: { action: 'forgot_password.send', page: forgotPasswordPage } },
    async (request, reply) => {
      const services = request.server;
      const fields = new FieldReader(request.body);
      const email = fields.email('email', { required: true });
      fields.throwIfInvalid();
      await limitEmailSends(request, 'forgot-password', email);
      // Sent after the response is on its way: the answer and its timing are the same for any address.
      void sendPasswordReset(services, email!).catch((error: unknown) =>
        request.log.error({ err: error }, 'could not send the password reset email'),
      );
      return respond(request, reply, {
        action: 'forgot_password.send',
        status: 'success',
        message: 'If that address belongs to an account, a link to reset the password is on its way.',
        redirectTo: '/login',
      });
    },
  );

  app.get(
    '/reset-password',
    {
      config: {
        action: 'reset_password.show',
        page: resetPasswordPage,
        pageProps: resetPasswordPageProps,
        secrets: ['token'],
      },
    },
    async (request, reply) => {
      const token = (request.query as Record<string, unknown>).token;
      const usable = typeof token === 'string' && (await isPasswordResetTokenUsable(request.server, token));
      return respond(request, reply, {
        action: 'reset_password.show',
        status: usable ? 'info' : 'error',
        // An error envelope carries an error status, like the POST with the same token would.
        statusCode: usable ? 200 : 422,
        message: usable ? undefined : 'Validation failed.',
        data: { token_valid: usable },
        errors: usable ? undefined : { token: 'This reset link is invalid or has expired.' },
        render: true,
      });
    },
  );

  app.post(
    '/reset-password',
    {
      config: {
        action: 'reset_password.attempt',
        page: resetPasswordPage,
        pageProps: resetPasswordPageProps,
        secrets: ['token'],
      },
    },
    async (request, reply) => {
      const services = request.server;
      const fields = new FieldReader(request.body);
      const token = fields.string('token', { required: true, max: 256 });
      const password = readNewPassword(fields, services.config.limits);
      fields.throwIfInvalid();
      const userId = await consumePasswordResetToken(services, token!);
      if (userId === null) throw new ValidationError({ token: 'This reset link is invalid or has expired.' });

      const hash = await services.passwords.hash(password!);
      await changeWithEvent(services, { userId, type: 'password_reset', ...originOf(request) }, (db) =>
        services.users.setPasswordHash(userId, hash, db),
      );
      // The reset link was read in the account's mailbox.
      await services.users.markEmailVerified(userId);
      const owner = await services.users.findById(userId);
      if (owner)
        void notify(services, owner, 'password_reset', {
          device: describeDevice(originOf(request).userAgent),
          ip: request.ip,
        });
      // A reset ends every session and remember-me token of the account, this browser's included.
      await services.sessions.destroyForUser(userId);
      await services.remember.revokeAllForUser(userId);
      if (request.session.userId === userId) request.session.clear();
      return respond(request, reply, {
        action: 'reset_password.attempt',
        status: 'success',
        message: 'Your password was changed. Please sign in with the new one.',
        redirectTo: '/login',
      });
    },
  );
}

/** GET of a form page: HTML for browsers, a small info envelope for JSON clients. */
function showPage(request: FastifyRequest, reply: FastifyReply, action: string) {
  return respond(request, reply, { action, status: 'info', render: true });
}

function signInPageProps(request: FastifyRequest): SignInPageProps {
  const { passwordMinLength, passwordMaxLength } = request.server.config.limits;
  return {
    providers: request.server.config.oauthProviders.map(({ id, label }) => ({ id, label })),
    passwordLength: { passwordMinLength, passwordMaxLength },
  };
}

function resetPasswordPageProps(request: FastifyRequest): ResetPasswordPageProps {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const token = typeof body.token === 'string' ? body.token : query.token;
  return { token: typeof token === 'string' ? token : '' };
}
