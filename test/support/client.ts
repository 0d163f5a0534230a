import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

export type ClientKind = 'json' | 'spa' | 'form';

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  /** Parsed JSON body (JSON responses), else undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  body: any;
  location?: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Form posts: add the session's CSRF token (default true). */
  csrf?: boolean;
  /** Bearer token for the Authorization header. */
  token?: string;
  query?: Record<string, string>;
}

/**
 * Leaks that must never be in any response of the whole suite: Argon2 hashes and 64-hex-digit
 * strings (SHA-256 and HMAC-SHA-256 hex, the way every token, code and session id is stored).
 */
export function assertNoSecretsLeaked(text: string, where: string): void {
  expect(text, `password hash in the response of ${where}`).not.toMatch(/\$argon2/);
  expect(text, `hex digest (a stored hash?) in the response of ${where}`).not.toMatch(
    /(?<![0-9a-fA-F])[0-9a-f]{64}(?![0-9a-fA-F])/,
  );
}

/**
 * A browser-like client over Fastify's inject: keeps cookies, speaks as a REST client (`json`), a
 * single-page app (`spa`) or a form (`form`, with the CSRF token filled in), never follows redirects.
 */
export class TestClient {
  readonly cookies = new Map<string, string>();

  constructor(public app: FastifyInstance) {}

  /** Same cookies, another server instance (for multi-instance tests). */
  useApp(app: FastifyInstance): this {
    this.app = app;
    return this;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private storeCookies(response: LightMyRequestResponse): void {
    for (const c of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired =
        (c.maxAge !== undefined && c.maxAge <= 0) ||
        (c.expires !== undefined && c.expires.getTime() <= Date.now());
      if (expired || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }

  async request(
    method: string,
    url: string,
    kind: ClientKind,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    // Fetch the CSRF token first: on a fresh client that GET creates the session cookie this post needs.
    const csrf =
      kind === 'form' && method !== 'GET' && options.csrf !== false ? await this.csrfToken() : undefined;
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (kind === 'json') {
      headers.accept ??= 'application/json';
      if (body !== undefined || method !== 'GET') {
        headers['content-type'] ??= 'application/json';
        payload = JSON.stringify(body ?? {});
      }
    } else if (kind === 'spa') {
      headers['x-spa'] = 'true';
      headers.accept ??= 'text/html, application/xhtml+xml';
      if (body !== undefined) {
        headers['content-type'] ??= 'application/json';
        payload = JSON.stringify(body);
      }
    } else {
      headers.accept ??= 'text/html';
      if (method !== 'GET') {
        const fields = { ...(body as Record<string, string> | undefined) };
        if (csrf !== undefined && fields._csrf === undefined) fields._csrf = csrf;
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
        payload = new URLSearchParams(fields).toString();
      }
    }
    const response = await this.app.inject({
      method: method as 'GET',
      url,
      headers,
      payload,
      query: options.query,
    });
    this.storeCookies(response);
    assertNoSecretsLeaked(response.body, `${method} ${url}`);
    const contentType = String(response.headers['content-type'] ?? '');
    return {
      status: response.statusCode,
      headers: response.headers,
      text: response.body,
      body: contentType.includes('json') && response.body ? JSON.parse(response.body) : undefined,
      location: response.headers.location as string | undefined,
    };
  }

  /** The session's CSRF token, read from a page's form like a browser would. */
  async csrfToken(): Promise<string> {
    const page = await this.request('GET', '/login', 'form');
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error('no CSRF field on /login');
    return match[1]!;
  }

  get(url: string, kind: ClientKind = 'json', options?: RequestOptions) {
    return this.request('GET', url, kind, undefined, options);
  }

  post(url: string, body: unknown = {}, kind: ClientKind = 'json', options?: RequestOptions) {
    return this.request('POST', url, kind, body, options);
  }

  put(url: string, body: unknown, kind: ClientKind = 'json', options?: RequestOptions) {
    return this.request('PUT', url, kind, body, options);
  }

  patch(url: string, body: unknown, kind: ClientKind = 'json', options?: RequestOptions) {
    return this.request('PATCH', url, kind, body, options);
  }

  delete(url: string, kind: ClientKind = 'json', options?: RequestOptions) {
    return this.request('DELETE', url, kind, undefined, options);
  }
}
