import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fastifyCookie } from '@fastify/cookie';
import { sha256Hex } from '../core/crypto.ts';
import { publicUser, type Caller, type PublicUser, type TokenRecord } from '../http/security/caller.ts';
import { SESSION_COOKIE } from '../http/sessions/plugin.ts';
import { SUDO_KEY, type SudoState } from '../auth/core/sudo/state.ts';
import { isDisabled } from '../auth/core/users.ts';

/** What `getCaller()` accepts: a Fastify request, a Node request (Express's too), a Fetch Request or its Headers. */
export type CallerSource = FastifyRequest | IncomingMessage | Request | Headers;

/** The session a caller signed in with (never its id: that is the cookie's secret). */
export interface CallerSession {
  /** When the session ends unless used again (idle expiry), ISO 8601. */
  expiresAt: string;
  /** Until when the session holds sudo (recently confirmed identity), or null. */
  sudoExpiresAt: string | null;
}

/** Who is calling, as the host application sees it: a session's user, or a bearer token's owner and token. */
export interface ResolvedCaller {
  user: PublicUser;
  /** Present for a session cookie. */
  session?: CallerSession;
  /** Present for an `Authorization: Bearer` personal access token (or a plugin's bearer credential: `id` 0). */
  token?: TokenRecord;
}

/** Anything that can resolve callers for one Citadel instance (a server, a fetch handler, ...). */
export interface CallerResolving {
  getCaller(request: CallerSource): Promise<ResolvedCaller | null>;
}

const BEARER = /^Bearer ([^\s]+)$/i;
const MAX_SESSION_COOKIE_LENGTH = 128;

interface Resolved {
  caller: Caller;
  info: ResolvedCaller;
}

/** The two headers that say who is calling, from any of the request kinds. */
export function callerHeaders(source: CallerSource): { cookie?: string; authorization?: string } {
  if (typeof Headers !== 'undefined' && source instanceof Headers) return fromFetchHeaders(source);
  if (typeof Request !== 'undefined' && source instanceof Request) return fromFetchHeaders(source.headers);
  const headers = (source as { headers?: unknown }).headers;
  if (headers && typeof (headers as Headers).get === 'function') return fromFetchHeaders(headers as Headers);
  const plain = (headers ?? {}) as Record<string, string | string[] | undefined>;
  return { cookie: single(plain.cookie, '; '), authorization: single(plain.authorization, ', ') };
}

function fromFetchHeaders(headers: Headers) {
  return {
    cookie: headers.get('cookie') ?? undefined,
    authorization: headers.get('authorization') ?? undefined,
  };
}

function single(value: string | string[] | undefined, separator: string): string | undefined {
  return Array.isArray(value) ? value.join(separator) : value;
}

/**
 * Resolves callers against one Citadel instance's services (database or Redis session store,
 * tokens, users, clock), read-only: the same rules as Citadel's own routes (a bearer token when
 * the header is there, and then only that; else the session cookie), but nothing is written. A
 * bad token or an ended session is simply no caller; a remember-me cookie alone is not a caller
 * here (it is exchanged for a session by the next request to Citadel itself).
 */
export class CallerResolver implements CallerResolving {
  private readonly cache = new WeakMap<object, Promise<Resolved | null>>();

  constructor(private readonly services: FastifyInstance) {}

  async getCaller(request: CallerSource): Promise<ResolvedCaller | null> {
    return (await this.resolve(request))?.info ?? null;
  }

  /** Resolve once per request object (a pre-handler and the route may both ask). */
  resolve(request: CallerSource): Promise<Resolved | null> {
    let resolved = this.cache.get(request);
    if (!resolved) {
      resolved = this.fromHeaders(callerHeaders(request));
      this.cache.set(request, resolved);
    }
    return resolved;
  }

  private async fromHeaders(headers: { cookie?: string; authorization?: string }): Promise<Resolved | null> {
    const services = this.services.citadel;
    const { tokens, users, sessions, clock } = services;
    if (headers.authorization !== undefined) {
      const match = BEARER.exec(headers.authorization);
      if (!match) return null;
      for (const verify of services.bearerVerifiers) {
        const caller = await verify(match[1]!, services);
        if (caller === undefined) continue;
        if (caller === null || caller.user.active !== 1 || isDisabled(caller.user, clock.now().toISOString()))
          return null;
        // A credential made for one resource (an OAuth access token) is not the host's to accept.
        if (caller.via === 'bearer' && caller.credential.audience !== undefined) return null;
        return { caller, info: { user: publicUser(caller.user), token: caller.token ?? undefined } };
      }
      const verified = await tokens.verify(match[1]!);
      if (!verified || verified.user.active !== 1) return null;
      return {
        caller: { via: 'token', user: verified.user, token: verified.record },
        info: { user: publicUser(verified.user), token: verified.record },
      };
    }
    if (!headers.cookie) return null;
    const raw = fastifyCookie.parse(headers.cookie)[SESSION_COOKIE];
    if (!raw || raw.length > MAX_SESSION_COOKIE_LENGTH) return null;
    const stored = await sessions.load(sha256Hex(raw));
    if (!stored || stored.userId === null) return null;
    const user =
      stored.user && stored.user.id === stored.userId ? stored.user : await users.findById(stored.userId);
    if (!user || user.active !== 1) return null;
    const sudo = stored.data[SUDO_KEY] as SudoState | undefined;
    const now = clock.now().toISOString();
    const sudoActive =
      sudo !== undefined &&
      sudo.userId === user.id &&
      typeof sudo.expiresAt === 'string' &&
      sudo.expiresAt > now;
    return {
      caller: { via: 'session', user, token: null },
      info: {
        user: publicUser(user),
        session: { expiresAt: stored.expiresAt, sudoExpiresAt: sudoActive ? sudo.expiresAt : null },
      },
    };
  }
}

/**
 * Live Citadel instances of this process, for `getCaller(request)` without an instance: with
 * exactly one, it is the one asked.
 */
const live = new Set<CallerResolving>();

export function registerInstance(instance: CallerResolving): () => void {
  live.add(instance);
  return () => live.delete(instance);
}

/** The resolver a Fastify request reaches: its own app's, or the host's where Citadel is registered. */
export const kCallerResolver = Symbol.for('citadel.callerResolver');

function isFastifyRequest(source: CallerSource): source is FastifyRequest {
  return typeof source === 'object' && source !== null && 'server' in source && 'raw' in source;
}

/**
 * Who is calling: the session cookie's user or the bearer token's owner (with the token), or null.
 * A Fastify request finds its Citadel by itself (`createServer()`'s app, or a host app Citadel is
 * registered in); any other request needs the instance (`citadel`: what `createServer()` or
 * `createFetchHandler()` returned) unless exactly one Citadel instance runs in the process.
 */
export async function getCaller(
  request: CallerSource,
  citadel?: CallerResolving,
): Promise<ResolvedCaller | null> {
  if (citadel) return citadel.getCaller(request);
  if (isFastifyRequest(request)) {
    const holder = (request.server as unknown as Record<symbol, { resolver?: CallerResolving } | undefined>)[
      kCallerResolver
    ];
    if (holder?.resolver) return holder.resolver.getCaller(request);
  }
  if (live.size === 1) return [...live][0]!.getCaller(request);
  throw new Error(
    live.size === 0
      ? 'getCaller: no Citadel instance is running (create one with createServer() or createFetchHandler() first)'
      : 'getCaller: several Citadel instances run in this process; pass the one to ask: getCaller(request, citadel)',
  );
}
