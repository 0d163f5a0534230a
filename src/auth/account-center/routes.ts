import { readFileSync } from 'node:fs';
import {
  type PluginAsset,
  AuthenticationRequiredError,
  NotFoundError,
  ValidationError,
  type Caller,
  publicUser,
  defineEndpoint,
  type EndpointInput,
  type EndpointResult,
  Envelope,
  pageEndpoint,
  USERNAME,
  endSession,
  recordSecurityEvent,
  securityEventListEndpoint,
  describeDevice,
} from '../../plugin-api.ts';
import { Type } from '@sinclair/typebox';
import { changeUsername, deleteAccount } from './account.ts';
import { accountCenterMessages } from './messages/index.ts';
import { AccountUserSchema, accountUser, changeLocaleEndpoint } from './locale.ts';
import { accountPageProps } from './account-page-props.ts';
import {
  confirmEmailChange,
  EMAIL_CHANGE_LIMITS,
  findPendingEmailChange,
  OtherAccountError,
  requestEmailChange,
  voidPendingEmailChanges,
} from './email-change.ts';
import {
  currentHandle,
  currentMeta,
  listSessions,
  revokeOtherSessions,
  revokeSessionByHandle,
} from './sessions.ts';
import { accountPage, deleteAccountPage, emailVerifyPage, eventsPage, sessionsPage } from './pages.ts';

/** Account page, username and email change, account deletion, sessions and security events. */

/** Session handles are random and short: a longer id is unknown without a lookup. */
const MAX_SESSION_HANDLE = 64;
const INVALID_LINK = accountCenterMessages.text('error.invalidLink');

/** Form clients see the link's page with the error; others get a 404. */
function invalidLink(request: EndpointInput): EndpointResult {
  if (request.client === 'form')
    return { status: 'error', statusCode: 404, message: INVALID_LINK, render: true };
  throw new NotFoundError(INVALID_LINK);
}

/** The link's owner must be signed in: anyone else is sent to sign in (401) or refused (403). */
function requireLinkOwner(caller: Caller | null, ownerId: number) {
  if (caller?.via !== 'session')
    throw new AuthenticationRequiredError(accountCenterMessages.text('error.signInToConfirm'));
  if (caller.user.id !== ownerId) throw new OtherAccountError();
  return caller.user;
}

const SessionSchema = Type.Object({
  id: Type.String({ description: 'An opaque handle, never the cookie value' }),
  current: Type.Boolean(),
  created_at: Type.String(),
  last_seen_at: Type.String(),
  ip: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  device: Type.String(),
  remembered: Type.Boolean(),
});

const EMAIL_VERIFY_TOKEN = Type.String({ 'x-raw': true, description: 'The token of the emailed link' });

const showAccount = defineEndpoint({
  method: 'GET',
  path: '/account',
  action: 'account.index',
  auth: 'session',
  bearer: false,
  summary: 'The signed-in account; page: the account home',
  responses: {
    200: Envelope({
      fields: { user: AccountUserSchema },
      data: Type.Object({ has_password: Type.Boolean(), created_at: Type.String() }),
    }),
  },
  page: accountPage,
  pageProps: accountPageProps,
  async handler({ caller }) {
    const user = caller.user;
    return {
      status: 'success',
      fields: { user: accountUser(user) },
      data: { has_password: user.password_hash !== null, created_at: user.created_at },
      render: true,
    };
  },
});

const changeUsernameEndpoint = defineEndpoint({
  method: 'POST',
  path: '/account/username',
  action: 'account.username',
  auth: 'session',
  bearer: false,
  summary: 'Change the username (the rules of registration; unique in any case)',
  body: Type.Object({
    username: Type.String({
      minLength: 3,
      maxLength: 30,
      pattern: USERNAME.source,
      'x-pattern-message': 'Username may contain only letters, digits and spaces.',
      'x-pattern-message-key': 'account-center.error.usernamePattern',
    }),
  }),
  responses: { 200: Envelope({ user: 'required' }) },
  page: accountPage,
  pageProps: accountPageProps,
  async handler(request) {
    const { body, caller, services, ip, userAgent } = request;
    const updated = await changeUsername(services, caller.user, body.username, { ip, userAgent });
    request.caller = { via: 'session', user: updated, token: null };
    return {
      status: 'success',
      message: accountCenterMessages.text('answer.usernameChanged'),
      user: publicUser(updated),
      redirect_to: '/account',
    };
  },
});

const requestEmailChangeEndpoint = defineEndpoint({
  method: 'POST',
  path: '/account/email',
  action: 'account.email.pending',
  auth: 'sudo',
  bearer: false,
  summary: 'Ask to change the email address: a link goes to the new one, a notice to the old one',
  impersonation: 'forbidden',
  body: Type.Object({ email: Type.String({ format: 'email', maxLength: 191, title: 'New email' }) }),
  // Counted before the address is looked up, so a 429 says nothing about who owns it.
  rateLimit: EMAIL_CHANGE_LIMITS,
  failures: [409],
  responses: { 200: Envelope() },
  page: accountPage,
  pageProps: accountPageProps,
  async handler({ body, caller, services, ip, userAgent, language }) {
    const user = caller.user;
    if (body.email.toLowerCase() === user.email)
      throw new ValidationError({ email: accountCenterMessages.text('error.sameEmail') });
    await requestEmailChange(
      services,
      user,
      body.email,
      { ip, userAgent },
      { hideExisting: services.config.registerHideExisting, language },
    );
    return {
      status: 'info',
      message: accountCenterMessages.text('answer.emailSent', { email: body.email.toLowerCase() }),
      redirect_to: '/account',
    };
  },
});

// The link opens a confirmation page; GET and HEAD change nothing (a mail scanner cannot confirm).
const showEmailVerify = defineEndpoint({
  method: 'GET',
  path: '/account/email/verify/:token',
  action: 'account.email.verify.show',
  auth: 'optional',
  summary: "The emailed link's confirmation page (changes nothing), for the account that asked",
  description:
    'Signed out: 401 (sign in, then open the link again); another account: 403; an invalid, used or expired link: 404.',
  params: Type.Object({ token: EMAIL_VERIFY_TOKEN }),
  secrets: ['token'],
  failures: [401, 403, 404],
  responses: { 200: Envelope({ data: Type.Object({ new_email: Type.String() }) }) },
  page: emailVerifyPage,
  async handler(input) {
    const { params, caller, services } = input;
    const pending = await findPendingEmailChange(services, params.token);
    if (!pending) return invalidLink(input);
    requireLinkOwner(caller, pending.userId);
    return {
      status: 'info',
      message: accountCenterMessages.text('answer.confirmEmail', { email: pending.newEmail }),
      data: { new_email: pending.newEmail },
      // The page's form posts the token back; JSON clients already hold it.
      fields: input.client === 'form' ? { token: params.token } : undefined,
      render: true,
    };
  },
});

const confirmEmailVerify = defineEndpoint({
  method: 'POST',
  path: '/account/email/verify',
  action: 'account.email.changed',
  auth: 'optional',
  summary: "Confirm an email change with its link's token, in a session of the account that asked",
  description:
    'Signed out or a bearer token: 401, another account: 403 (the link stays valid in both cases); the address taken meanwhile: 409; an invalid, used or expired link: 404.',
  body: Type.Object({ token: Type.String({ 'x-raw': true, maxLength: 256 }) }),
  impersonation: 'forbidden',
  secrets: ['token'],
  failures: [401, 403, 404, 409],
  responses: { 200: Envelope({ user: 'required' }) },
  page: emailVerifyPage,
  async handler(input) {
    const { body, caller, services, ip, userAgent } = input;
    const pending = await findPendingEmailChange(services, body.token);
    if (!pending) return invalidLink(input);
    requireLinkOwner(caller, pending.userId);
    const user = await confirmEmailChange(services, body.token, pending.userId, { ip, userAgent });
    if (!user) return invalidLink(input);
    input.caller = { via: 'session', user, token: null };
    return {
      status: 'success',
      message: accountCenterMessages.text('answer.emailChanged', { email: user.email }),
      user: publicUser(user),
      redirect_to: '/account',
    };
  },
});

const showDeleteAccount = pageEndpoint({
  path: '/account/delete',
  action: 'account.delete.show',
  auth: 'session',
  bearer: false,
  summary: 'The account deletion page',
  page: deleteAccountPage,
  pageProps: accountPageProps,
});

const deleteAccountEndpoint = defineEndpoint({
  method: 'POST',
  path: '/account/delete',
  action: 'account.deleted',
  auth: 'sudo',
  bearer: false,
  summary: 'Delete the account and everything in it',
  responses: { 200: Envelope() },
  page: deleteAccountPage,
  pageProps: accountPageProps,
  impersonation: 'forbidden',
  async handler(request) {
    const { caller, services, ip, userAgent } = request;
    await deleteAccount(services, caller.user, { ip, userAgent });
    await endSession(request);
    return {
      status: 'success',
      message: accountCenterMessages.text('answer.deleted'),
      redirect_to: '/',
    };
  },
});

const listSessionsEndpoint = defineEndpoint({
  method: 'GET',
  path: '/sessions',
  action: 'sessions.index',
  auth: 'session',
  ability: 'sessions:read',
  summary: "The user's live sessions, newest first, the current one marked",
  responses: { 200: Envelope({ data: Type.Object({ sessions: Type.Array(SessionSchema) }) }) },
  page: sessionsPage,
  pageProps: accountPageProps,
  async handler(request) {
    const { caller, services } = request;
    const current = caller.via === 'session' ? currentMeta(request) : null;
    return {
      status: 'success',
      data: { sessions: await listSessions(services, caller.user.id, current) },
      render: true,
    };
  },
});

const revokeSession = defineEndpoint({
  method: 'DELETE',
  path: '/sessions/:id',
  aliases: [{ method: 'POST', path: '/sessions/revoke/:id' }],
  action: 'sessions.revoke',
  auth: 'session',
  ability: 'sessions:delete',
  summary: 'Sign out one session (and its remember-me token); unknown or someone else’s: 404',
  params: Type.Object({ id: Type.String({ 'x-raw': true, description: 'A session handle' }) }),
  failures: [404],
  responses: { 200: Envelope() },
  async handler(request) {
    const { params, caller, services, ip, userAgent } = request;
    const user = caller.user;
    const handle = params.id;
    // Unknown and someone else's look the same: only the caller's own sessions are searched.
    const ended =
      handle.length <= MAX_SESSION_HANDLE ? await revokeSessionByHandle(services, user.id, handle) : null;
    if (!ended) throw new NotFoundError(accountCenterMessages.text('error.sessionNotFound'));
    await recordSecurityEvent(services.db, services.clock, {
      userId: user.id,
      type: 'session_revoked',
      ip,
      userAgent,
      detail: { device: describeDevice(ended.meta.user_agent), count: 1 },
    });
    const own = caller.via === 'session' && handle === currentHandle(request);
    // Another session signed out: whatever email change it may have asked for ends with it.
    if (!own) await voidPendingEmailChanges(services.db, user.id, services.clock.now());
    if (own) await endSession(request);
    return {
      status: 'success',
      message: own
        ? accountCenterMessages.text('answer.signedOutHere')
        : accountCenterMessages.text('answer.sessionSignedOut'),
      redirect_to: own ? '/login' : '/sessions',
    };
  },
});

const revokeOthers = defineEndpoint({
  method: 'POST',
  path: '/sessions/revoke-others',
  action: 'sessions.revoke_others',
  auth: 'session',
  ability: 'sessions:delete',
  summary: 'Sign out every other session and remember-me token of the user',
  responses: { 200: Envelope({ data: Type.Object({ revoked: Type.Integer() }) }) },
  async handler(request) {
    const { caller, services, ip, userAgent } = request;
    const user = caller.user;
    const handle = caller.via === 'session' ? currentHandle(request) : null;
    const revoked = await revokeOtherSessions(services, user.id, handle);
    // Whoever held another session may have asked for an email change: it ends too.
    await voidPendingEmailChanges(services.db, user.id, services.clock.now());
    await recordSecurityEvent(services.db, services.clock, {
      userId: user.id,
      type: 'session_revoked',
      ip,
      userAgent,
      detail: { count: revoked, others: true },
    });
    return {
      status: 'success',
      message: accountCenterMessages.text('answer.othersSignedOut', { count: revoked }),
      data: { revoked },
      redirect_to: '/sessions',
    };
  },
});

// The core's list, served here with the account center's page.
const listEvents = securityEventListEndpoint({ page: eventsPage, pageProps: accountPageProps });

export const accountCenterEndpoints = [
  showAccount,
  changeLocaleEndpoint,
  changeUsernameEndpoint,
  requestEmailChangeEndpoint,
  showEmailVerify,
  confirmEmailVerify,
  showDeleteAccount,
  deleteAccountEndpoint,
  listSessionsEndpoint,
  revokeSession,
  revokeOthers,
  listEvents,
] as const;

/** The pages' shared script (confirmations, copy buttons, focus after errors): not an endpoint. */
export const accountCenterAssets: readonly PluginAsset[] = [
  {
    path: '/assets/ui.js',
    contentType: 'text/javascript; charset=utf-8',
    read: () => readFileSync(new URL('./assets/ui.js', import.meta.url), 'utf8'),
  },
];
