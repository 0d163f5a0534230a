import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';
import type { CitadelConfig } from '../../config/types.ts';

/** Citadel's helmet settings: one source for every response and for the server's early answers. */
export function citadelHelmetOptions(
  config: Pick<CitadelConfig, 'stylesheet' | 'secureCookies'>,
): HelmetOptions {
  return {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // The application's stylesheet (`stylesheet`) may live on another origin.
        styleSrc: ["'self'", "'unsafe-inline'", ...stylesheetOrigin(config.stylesheet)],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        // Over plain http (development, tests) upgrading would break every form post.
        upgradeInsecureRequests: config.secureCookies ? [] : null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // No Citadel page is ever framed (the consent page least of all: clickjacking); browsers without
    // CSP frame-ancestors still refuse, where helmet's default SAMEORIGIN would allow this origin.
    xFrameOptions: { action: 'deny' },
    // RFC 6797 §7.2: HSTS is sent over https only; an http APP_URL (development) gets none.
    strictTransportSecurity: config.secureCookies,
    // Same-origin Referers let a form post that needs sudo come back to its page afterwards;
    // other origins still get none.
    referrerPolicy: { policy: 'same-origin' },
  };
}

function stylesheetOrigin(stylesheet: string | undefined): string[] {
  if (!stylesheet || !/^https?:\/\//.test(stylesheet)) return [];
  return [new URL(stylesheet).origin];
}

/**
 * Helmet's headers for the given options, computed once. They depend on the options only (no
 * per-request nonces here), so running helmet against a collecting response at start-up gives
 * exactly what it would set on every request.
 */
export function computeSecurityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const collector = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  helmet(options)({} as IncomingMessage, collector as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * The headers of a JSON answer. Helmet's set is made for documents: most of it (the page's CSP
 * sources, COOP, Origin-Agent-Cluster, X-DNS-Prefetch-Control, X-Download-Options,
 * X-Permitted-Cross-Domain-Policies, X-XSS-Protection, Referrer-Policy) only acts on a document a
 * browser renders. A JSON answer gets what still protects it (OWASP's REST Security Cheat Sheet):
 * a CSP that allows nothing and no framing, `nosniff`, `X-Frame-Options: DENY`, the
 * Cross-Origin-Resource-Policy, and HSTS when the document set has it. About 170 bytes instead of
 * about 600 on every API answer.
 */
export function jsonSecurityHeaders(
  documentHeaders: Readonly<Record<string, string>>,
): Record<string, string> {
  const lowerCase = Object.fromEntries(
    Object.entries(documentHeaders).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const headers: Record<string, string> = {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  };
  for (const kept of ['cross-origin-resource-policy', 'strict-transport-security']) {
    if (lowerCase[kept] !== undefined) headers[kept] = lowerCase[kept];
  }
  return headers;
}

/** `application/json` and `application/<something>+json` (problem details). */
export function isJsonContentType(type: unknown): boolean {
  return typeof type === 'string' && /^application\/(?:[\w.-]+\+)?json(?:;|$)/i.test(type);
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Sources besides this server that this answer's page may send its forms to (CSP
     * `form-action`), or null: a sign-in whose last redirect goes to another application (an OAuth
     * client's redirect URI), which browsers check against the form's page.
     */
    formTargets: string[] | null;
  }
}

/** A CSP source for a URI a form submission may end at: its origin, or its scheme (`app:`). */
export function formTargetSource(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  // A private-use scheme (a native application): the scheme is the source; letters, digits, +.- only.
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

/** The document CSP with more `form-action` sources (each checked by `formTargetSource`). */
function withFormTargets(csp: string, targets: readonly string[]): string {
  const sources = targets.filter((target) => /^[^\s;,']+$/.test(target)).join(' ');
  return sources === '' ? csp : csp.replace("form-action 'self'", `form-action 'self' ${sources}`);
}

/**
 * The security headers on every response, set by one hook from two precomputed objects: helmet's
 * document set, or the JSON set above for a JSON answer. Set on send, once the answer's type is
 * known. (The @fastify/helmet plugin built the helmet middleware anew on every request, from two
 * hooks.)
 */
export const securityHeaders = fp(async function securityHeaders(
  app: FastifyInstance,
  options: HelmetOptions,
) {
  // Lower-case names, as Fastify stores them (reply.header lower-cases each name it is given).
  const documentHeaders = Object.fromEntries(
    Object.entries(computeSecurityHeaders(options)).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const jsonHeaders = jsonSecurityHeaders(documentHeaders);
  if (!app.hasRequestDecorator('formTargets')) app.decorateRequest('formTargets', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isJsonContentType(reply.getHeader('content-type'))) reply.headers(jsonHeaders);
    else {
      reply.headers(documentHeaders);
      const csp = documentHeaders['content-security-policy'];
      if (request.formTargets && csp)
        reply.header('content-security-policy', withFormTargets(csp, request.formTargets));
    }
    done(null, payload);
  });
});
