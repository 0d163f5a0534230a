import type { CitadelServices, Text } from '../../../src/plugin-api.ts';
import { blogMessages } from './messages/index.ts';

/**
 * The blog pages read and write through the resource API in the same process (`services.fetch`:
 * no socket, the whole engine: hooks, validation, visibility, cursors, obfuscated ids), as the
 * signed-in caller when a session cookie is given. The pages never touch the tables themselves.
 */

/** A record as the API answers it (ids are obfuscated strings). */
export type ApiRecord = Record<string, unknown> & { id: string };

export interface Pagination {
  total?: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/** An answer of the API: the JSON body when it succeeded, else its problem details. */
export type EngineAnswer<T> =
  | { ok: true; status: number; data: T; pagination?: Pagination }
  | { ok: false; status: number; detail: Text; invalid: Record<string, string> };

interface ProblemBody {
  detail?: string;
  invalid_params?: { name: string; reason: string }[];
}

export interface Engine {
  call<T = ApiRecord>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options?: {
      session?: string | null;
      query?: Record<string, string | undefined>;
      body?: unknown;
      /** The reader's language tag: the API writes its problem details in it. */
      language?: string;
    },
  ): Promise<EngineAnswer<T>>;
}

/**
 * The engine of the server `services` belong to, at `/api/v1`. `session` is the caller's session
 * cookie value (none: an anonymous read).
 */
export function engineOf(services: Pick<CitadelServices, 'fetch'>, cookieName: string): Engine {
  return {
    async call(method, path, options = {}) {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(options.query ?? {}))
        if (value !== undefined && value !== '') search.set(name, value);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.session) headers.cookie = `${cookieName}=${options.session}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      if (options.language) headers['accept-language'] = options.language;
      const url = `http://citadel/api/v1${path}${search.size > 0 ? `?${search}` : ''}`;
      const response = await services.fetch(
        new Request(url, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        }),
      );
      const text = await response.text();
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      if (response.status < 400) {
        return {
          ok: true,
          status: response.status,
          data: body.data as never,
          pagination: body.pagination as Pagination | undefined,
        };
      }
      const problem = body as ProblemBody;
      const invalid: Record<string, string> = {};
      // A field's name is its JSON pointer (`/title`) or its plain name.
      for (const { name, reason } of problem.invalid_params ?? []) invalid[name.replace(/^\//, '')] = reason;
      return {
        ok: false,
        status: response.status,
        detail: problem.detail ?? blogMessages.text('error.requestFailed'),
        invalid,
      };
    },
  };
}
