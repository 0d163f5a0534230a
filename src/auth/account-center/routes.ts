import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FieldReader } from '../../http/fields.ts';
import { respond } from '../../http/respond.ts';
import { requireAbility, requireSessionUser } from '../core/caller.ts';
import { AuthenticationRequiredError, NotFoundError, ValidationError } from '../../core/errors.ts';
import { clientKind } from '../../http/negotiation.ts';
import { publicUser } from '../core/users.ts';
import { USERNAME } from '../accounts/username-rule.ts';
import { isSudoActive, requireSudo } from '../sudo/guard.ts';
import { endSession } from '../core/sessions.ts';
import { listSecurityEvents, originOf, recordSecurityEvent, sweepSecurityEvents } from './events.ts';
import { changeUsername, deleteAccount } from './account.ts';
import {
  confirmEmailChange,
  findPendingEmailChange,
  limitEmailChangeRequests,
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
import { accountSettings } from './settings.ts';
import { describeDevice } from './device.ts';
import {
  type AccountPageProps,
  accountPage,
  deleteAccountPage,
  emailVerifyPage,
  eventsPage,
  sessionsPage,
} from './pages.ts';

const SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000;
const MAX_EVENTS_PER_PAGE = 100;
const DEFAULT_EVENTS_PER_PAGE = 20;

function positiveInteger(query: Record<string, unknown>, name: string, fallback: number, max?: number) {
  const value = query[name];
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new ValidationError({ [name]: `${name} must be a whole number of at least 1.` });
  return max === undefined ? Number(value) : Math.min(Number(value), max);
}

/** Account page, username and email change, account deletion, sessions and security events. */
/** What the account pages need besides the outcome: the stored user and whether sudo is active. */
async function accountPageProps(request: FastifyRequest): Promise<AccountPageProps> {
  const retentionDays = accountSettings(request.server.config).eventRetentionDays;
  const caller = request.caller;
  if (caller?.via !== 'session') return { needsSudo: false, retentionDays };
  const user = await request.server.users.findById(caller.user.id);
  return {
    user: user && {
      username: user.username,
      email: user.email,
      created_at: user.created_at,
      has_password: user.password_hash !== null,
    },
    needsSudo: !(await isSudoActive(request)),
    retentionDays,
  };
}

export async function accountCenterRoutes(app: FastifyInstance): Promise<void> {
  const services = app;
  // Bad NOTIFY_EVENTS / EVENT_RETENTION_DAYS stop start-up here, with one line.
  const settings = accountSettings(app.config);

  // Retention: old events go at start and every few hours after (each process; the delete is idempotent).
  const sweep = () =>
    sweepSecurityEvents(services.db, services.clock, settings.eventRetentionDays).catch((error: unknown) =>
      services.log.warn({ err: { message: (error as Error).message } }, 'event sweep failed'),
    );
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    void sweep();
    timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));

  // The pages' shared script (confirmations, copy buttons, focus after errors).
  const uiScript = readFileSync(new URL('./assets/ui.js', import.meta.url), 'utf8');
  app.get('/assets/ui.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(uiScript),
  );

  app.get(
    '/account',
    { config: { action: 'account.index', page: accountPage, pageProps: accountPageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      return respond(request, reply, {
        action: 'account.index',
        status: 'success',
        user: publicUser(user),
        data: { has_password: user.password_hash !== null, created_at: user.created_at },
        render: true,
      });
    },
  );

  app.post(
    '/account/username',
    { config: { action: 'account.username', page: accountPage, pageProps: accountPageProps } },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const fields = new FieldReader(request.body);
      const username = fields.string('username', {
        required: true,
        min: 3,
        max: 30,
        pattern: USERNAME,
        patternMessage: 'Username may contain only letters, digits and spaces.',
      });
      fields.throwIfInvalid();
      const updated = await changeUsername(request.server, user, username!, originOf(request));
      request.caller = { via: 'session', user: updated, token: null };
      return respond(request, reply, {
        action: 'account.username',
        status: 'success',
        message: 'Your username was changed.',
        user: publicUser(updated),
        redirectTo: '/account',
      });
    },
  );

  app.post(
    '/account/email',
    {
      config: { action: 'account.email.pending', page: accountPage, pageProps: accountPageProps },
      preHandler: requireSudo,
    },
    async (request, reply) => {
      const user = requireSessionUser(request);
      const fields = new FieldReader(request.body);
      const email = fields.email('email', { required: true, label: 'New email' });
      if (email !== undefined && !fields.errors.email && email.toLowerCase() === user.email)
        fields.fail('email', 'This is already your email address.');
      fields.throwIfInvalid();
      await limitEmailChangeRequests(request.server.rateLimiter, user.id, email!);
      await requestEmailChange(request.server, user, email!, originOf(request), {
        hideExisting: request.server.config.registerHideExisting,
      });
      return respond(request, reply, {
        action: 'account.email.pending',
        status: 'info',
        message: `We sent a link to ${email!.toLowerCase()}. Open it and confirm, signed in to this account, to change your address.`,
        redirectTo: '/account',
      });
    },
  );

  const invalidLink = (request: FastifyRequest, reply: FastifyReply, action: string) => {
    const message = 'This link is invalid, was already used or has expired.';
    if (clientKind(request) === 'form')
      return respond(request, reply, { action, status: 'error', statusCode: 404, message, render: true });
    throw new NotFoundError(message);
  };
  /** The link's owner must be signed in: anyone else is sent to sign in (401) or refused (403). */
  const requireLinkOwner = (request: FastifyRequest, ownerId: number) => {
    const caller = request.caller;
    if (caller?.via !== 'session')
      throw new AuthenticationRequiredError(
        'Sign in to the account that asked for this change, then open the link again to confirm it.',
      );
    if (caller.user.id !== ownerId) throw new OtherAccountError();
    return caller.user;
  };

  // The link opens a confirmation page; GET and HEAD change nothing (a mail scanner cannot confirm).
  app.get(
    '/account/email/verify/:token',
    { config: { action: 'account.email.verify.show', page: emailVerifyPage, secrets: ['token'] } },
    async (request, reply) => {
      const token = (request.params as { token?: string }).token ?? '';
      const pending = await findPendingEmailChange(request.server, token);
      if (!pending) return invalidLink(request, reply, 'account.email.verify.show');
      requireLinkOwner(request, pending.userId);
      return respond(request, reply, {
        action: 'account.email.verify.show',
        status: 'info',
        message: `Confirm to change your email address to ${pending.newEmail}.`,
        data: { new_email: pending.newEmail },
        fields: clientKind(request) === 'form' ? { token } : undefined,
        render: true,
      });
    },
  );

  app.post(
    '/account/email/verify',
    { config: { action: 'account.email.changed', page: emailVerifyPage } },
    async (request, reply) => {
      const fields = new FieldReader(request.body);
      const token = fields.string('token', { required: true, raw: true, max: 256 });
      fields.throwIfInvalid();
      const services = request.server;
      const pending = await findPendingEmailChange(services, token!);
      if (!pending) return invalidLink(request, reply, 'account.email.changed');
      requireLinkOwner(request, pending.userId);
      const user = await confirmEmailChange(services, token!, pending.userId, originOf(request));
      if (!user) return invalidLink(request, reply, 'account.email.changed');
      request.caller = { via: 'session', user, token: null };
      return respond(request, reply, {
        action: 'account.email.changed',
        status: 'success',
        message: `Your email address is now ${user.email}.`,
        user: publicUser(user),
        redirectTo: '/account',
      });
    },
  );

  app.get(
    '/account/delete',
    { config: { action: 'account.delete.show', page: deleteAccountPage, pageProps: accountPageProps } },
    async (request, reply) => {
      requireSessionUser(request);
      return respond(request, reply, { action: 'account.delete.show', status: 'info', render: true });
    },
  );

  app.post(
    '/account/delete',
    {
      config: { action: 'account.deleted', page: deleteAccountPage, pageProps: accountPageProps },
      preHandler: requireSudo,
    },
    async (request, reply) => {
      const user = requireSessionUser(request);
      await deleteAccount(request.server, user, originOf(request));
      await endSession(request, reply);
      return respond(request, reply, {
        action: 'account.deleted',
        status: 'success',
        message: 'Your account and everything in it were deleted.',
        redirectTo: '/',
      });
    },
  );

  app.get(
    '/sessions',
    { config: { action: 'sessions.index', page: sessionsPage, pageProps: accountPageProps } },
    async (request, reply) => {
      const caller = requireAbility(request, 'sessions:read');
      const current = caller.via === 'session' ? currentMeta(request) : null;
      return respond(request, reply, {
        action: 'sessions.index',
        status: 'success',
        data: { sessions: await listSessions(request.server, caller.user.id, current) },
        render: true,
      });
    },
  );

  const revoke = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = requireAbility(request, 'sessions:delete');
    const handle = (request.params as { id?: string }).id ?? '';
    const services = request.server;
    // Unknown and someone else's look the same: only the caller's own sessions are searched.
    const ended = handle.length <= 64 ? await revokeSessionByHandle(services, caller.user.id, handle) : null;
    if (!ended) throw new NotFoundError('Session not found.');
    await recordSecurityEvent(services.db, services.clock, {
      userId: caller.user.id,
      type: 'session_revoked',
      ...originOf(request),
      detail: { device: describeDevice(ended.meta.user_agent), count: 1 },
    });
    const own = caller.via === 'session' && handle === currentHandle(request);
    // Another session signed out: whatever email change it may have asked for ends with it.
    if (!own) await voidPendingEmailChanges(services.db, caller.user.id, services.clock.now());
    if (own) await endSession(request, reply);
    return respond(request, reply, {
      action: 'sessions.revoke',
      status: 'success',
      message: own ? 'You were signed out of this browser.' : 'That session was signed out.',
      redirectTo: own ? '/login' : '/sessions',
    });
  };
  app.delete('/sessions/:id', { config: { action: 'sessions.revoke' } }, revoke);
  app.post('/sessions/revoke/:id', { config: { action: 'sessions.revoke' } }, revoke);

  app.post(
    '/sessions/revoke-others',
    { config: { action: 'sessions.revoke_others' } },
    async (request, reply) => {
      const caller = requireAbility(request, 'sessions:delete');
      const services = request.server;
      const handle = caller.via === 'session' ? currentHandle(request) : null;
      const revoked = await revokeOtherSessions(services, caller.user.id, handle);
      // Whoever held another session may have asked for an email change: it ends too.
      await voidPendingEmailChanges(services.db, caller.user.id, services.clock.now());
      await recordSecurityEvent(services.db, services.clock, {
        userId: caller.user.id,
        type: 'session_revoked',
        ...originOf(request),
        detail: { count: revoked, others: true },
      });
      return respond(request, reply, {
        action: 'sessions.revoke_others',
        status: 'success',
        message:
          revoked === 1 ? 'One other session was signed out.' : `${revoked} other sessions were signed out.`,
        data: { revoked },
        redirectTo: '/sessions',
      });
    },
  );

  app.get(
    '/account/events',
    { config: { action: 'events.index', page: eventsPage, pageProps: accountPageProps } },
    async (request, reply) => {
      const caller = requireAbility(request, 'events:read');
      const query = (request.query ?? {}) as Record<string, unknown>;
      const page = positiveInteger(query, 'page', 1);
      const limit = positiveInteger(query, 'limit', DEFAULT_EVENTS_PER_PAGE, MAX_EVENTS_PER_PAGE);
      const result = await listSecurityEvents(request.server.db, caller.user.id, page, limit);
      return respond(request, reply, {
        action: 'events.index',
        status: 'success',
        data: { events: result.events, pagination: result.pagination },
        render: true,
      });
    },
  );
}
