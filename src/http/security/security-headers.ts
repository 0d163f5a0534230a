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
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(isJsonContentType(reply.getHeader('content-type')) ? jsonHeaders : documentHeaders);
    done(null, payload);
  });
});
