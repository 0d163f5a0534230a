import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationRequiredError, ForbiddenError } from '../core/errors.ts';
import { getCaller, type CallerResolving, type CallerSource, type ResolvedCaller } from './caller.ts';

/**
 * Guards for the host application's own routes, one rule for every framework: no caller is 401;
 * `requireSudo` also wants a session that confirmed its identity recently (sudo, granted by
 * Citadel's /sudo page), else 403. A bearer token passes sudo, as on Citadel's own routes (its
 * abilities are its permissions).
 */
type Verdict = { caller: ResolvedCaller } | { status: 401 | 403; message: string };

const NO_CALLER = { status: 401, message: 'Authentication required.' } as const;
const NO_SUDO = { status: 403, message: 'Please confirm your identity to continue.' } as const;

async function judge(request: CallerSource, sudo: boolean, citadel?: CallerResolving): Promise<Verdict> {
  const caller = await getCaller(request, citadel);
  if (!caller) return NO_CALLER;
  if (sudo && caller.session && caller.session.sudoExpiresAt === null) return NO_SUDO;
  return { caller };
}

function fastifyGuard(sudo: boolean) {
  return async function guard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const verdict = await judge(request, sudo);
    if ('caller' in verdict) return;
    if (verdict.status === 401) throw new AuthenticationRequiredError(verdict.message);
    throw new ForbiddenError(verdict.message, { action: 'sudo.required', redirectTo: '/sudo' });
  };
}

/** Fastify preHandler: 401 unless the request has a caller (`{ preHandler: requireCaller }`). */
export const requireCaller = fastifyGuard(false);
/** Fastify preHandler: 401 without a caller, 403 for a session without sudo. */
export const requireSudo = fastifyGuard(true);

/** A Node/Express request once a guard let it through: `req.caller`. */
export type RequestWithCaller = IncomingMessage & { caller?: ResolvedCaller };
/** Express (or Connect, or plain node:http) middleware. */
export type NodeMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

function nodeGuard(sudo: boolean, citadel?: CallerResolving): NodeMiddleware {
  return (req, res, next) => {
    judge(req, sudo, citadel).then((verdict) => {
      if ('caller' in verdict) {
        (req as RequestWithCaller).caller = verdict.caller;
        return next();
      }
      res.statusCode = verdict.status;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ status: 'error', message: verdict.message }));
    }, next);
  };
}

/** Express/Connect middleware: 401 unless there is a caller, then `req.caller`. */
export function expressRequireCaller(citadel?: CallerResolving): NodeMiddleware {
  return nodeGuard(false, citadel);
}
/** Express/Connect middleware: 401 without a caller, 403 for a session without sudo, then `req.caller`. */
export function expressRequireSudo(citadel?: CallerResolving): NodeMiddleware {
  return nodeGuard(true, citadel);
}

/** The part of a Hono context the guards use (`c.req.raw`, `c.set('caller', …)`). */
export interface HonoLikeContext {
  req: { raw: Request };
  set(key: 'caller', value: ResolvedCaller): void;
}
/** Hono middleware: answers 401/403 itself, or sets `c.get('caller')` and goes on. */
export type HonoMiddleware = (c: HonoLikeContext, next: () => Promise<void>) => Promise<Response | void>;

function honoGuard(sudo: boolean, citadel?: CallerResolving): HonoMiddleware {
  return async (c, next) => {
    const verdict = await judge(c.req.raw, sudo, citadel);
    if ('caller' in verdict) {
      c.set('caller', verdict.caller);
      return next();
    }
    return Response.json({ status: 'error', message: verdict.message }, { status: verdict.status });
  };
}

/** Hono middleware: 401 unless there is a caller, then `c.get('caller')`. */
export function honoRequireCaller(citadel?: CallerResolving): HonoMiddleware {
  return honoGuard(false, citadel);
}
/** Hono middleware: 401 without a caller, 403 for a session without sudo, then `c.get('caller')`. */
export function honoRequireSudo(citadel?: CallerResolving): HonoMiddleware {
  return honoGuard(true, citadel);
}
