import type { FastifyRequest } from 'fastify';

/** What a secret parameter's value becomes in a log line. */
export const REDACTED = '[redacted]';

/**
 * Query names redacted on every route, declared or not: the second line behind the routes'
 * declarations, for a host's route, an unknown path, or a plugin that forgot.
 * The mechanism is the declaration (`config: { secrets: [...] }`); this list holds no path.
 */
const DEFAULT_SECRET_QUERY_NAMES = new Set([
  'token',
  'code',
  'state',
  'password',
  'secret',
  'proof',
  'access_token',
  'id_token',
  'refresh_token',
]);

/** `token[x]` is the parameter `token` too. */
function baseName(name: string): string {
  const bracket = name.indexOf('[');
  return (bracket === -1 ? name : name.slice(0, bracket)).toLowerCase();
}

/** The parameter names a pattern segment holds (`:token`, `:a-:b`, `:id(^\\d+)`, `*`). */
function segmentParams(segment: string): string[] {
  if (segment === '*') return ['*'];
  return [...segment.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/**
 * The path with every segment that holds a declared secret parameter replaced, found by laying
 * the route's URL pattern over the path segment by segment. When the two do not line up (a
 * wildcard before the secret, a pattern this reading does not follow), the pattern itself is
 * logged, never the path.
 */
function redactPath(path: string, pattern: string | undefined, secrets: ReadonlySet<string>): string {
  if (pattern === undefined || secrets.size === 0) return path;
  const patternSegments = pattern.split('/');
  if (!patternSegments.some((segment) => segmentParams(segment).some((name) => secrets.has(name))))
    return path;
  const pathSegments = path.split('/');
  const out: string[] = [];
  for (const [index, segment] of patternSegments.entries()) {
    const params = segmentParams(segment);
    if (params.includes('*')) {
      if (secrets.has('*')) return [...out, REDACTED].join('/');
      return [...out, ...pathSegments.slice(index)].join('/');
    }
    const actual = pathSegments[index];
    if (actual === undefined) return pattern;
    if (params.length === 0) {
      if (actual !== segment) return pattern;
      out.push(actual);
    } else {
      out.push(params.some((name) => secrets.has(name)) ? REDACTED : actual);
    }
  }
  // A trailing slash (ignoreTrailingSlash) is the only thing the path may have beyond the pattern.
  const rest = pathSegments.slice(patternSegments.length);
  if (rest.length > 1 || (rest.length === 1 && rest[0] !== '')) return pattern;
  return [...out, ...rest].join('/');
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Where declared secrets sit in paths, per server, read from the routes' own declarations: the
 * static part of each such route's pattern up to its first parameter (`/magic-link/verify/`, and
 * `/reset-password/` for a route whose token is a query parameter). A request that no declaring
 * route answered (404, a 400 of the router, a token pasted as a path segment) is logged with
 * everything after such a prefix redacted, so a mailed token never reaches a log line.
 */
export class SecretPaths {
  private readonly prefixes = new Set<string>();
  private readonly declared = new Set<string>();

  /** Every name any route declares secret: redacted from the query of a request no route declared for. */
  get names(): readonly string[] {
    return [...this.declared];
  }

  /** Record a route's URL pattern and the secrets it declares. */
  add(pattern: string, secrets: readonly string[] | undefined): void {
    if (!secrets || secrets.length === 0) return;
    for (const name of secrets) this.declared.add(name);
    const statics: string[] = [];
    for (const segment of pattern.split('/').slice(1)) {
      if (/[:*]/.test(segment)) break;
      statics.push(segment.toLowerCase());
    }
    const prefix = statics.filter(Boolean).join('/');
    this.prefixes.add(prefix === '' ? '/' : `/${prefix}/`);
  }

  /** The path cut after the secret prefix it starts with (compared case- and slash-insensitively), or null. */
  redact(path: string): string | null {
    let plain = path;
    try {
      plain = decodeURIComponent(path);
    } catch {
      // A malformed escape: compared as sent.
    }
    plain = plain.replace(/\/+/g, '/').toLowerCase();
    for (const prefix of this.prefixes) {
      if (plain.startsWith(prefix) && plain.length > prefix.length) return `${prefix}${REDACTED}`;
    }
    return null;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Filled by the server from every route's `secrets` (src/app/mount.ts). */
    secretPaths?: SecretPaths;
  }
}

/**
 * The URL as it may be logged. `secrets` are the names the route declares secret (`config: {
 * secrets }`): path parameters of its pattern and query names; the default query names are
 * redacted too.
 */
export function redactUrl(url: string, pattern?: string, secrets: readonly string[] = []): string {
  const declared = secrets.length === 0 ? NONE : new Set(secrets);
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const safePath = redactPath(path, pattern, declared);
  if (queryAt === -1) return safePath;
  const lowerDeclared = new Set(secrets.map((name) => name.toLowerCase()));
  const params = new URLSearchParams(url.slice(queryAt + 1));
  const safe = new URLSearchParams();
  for (const [name, value] of params) {
    const base = baseName(name);
    const secret = lowerDeclared.has(base) || DEFAULT_SECRET_QUERY_NAMES.has(base);
    safe.append(name, secret ? REDACTED : value);
  }
  return `${safePath}?${safe.toString()}`;
}

/**
 * Request log lines: method, URL with the route's declared secrets (and the default query names)
 * redacted, remote address; never headers, cookies or bodies.
 */
export function redactedRequestSerializer(request: FastifyRequest) {
  const route = request.routeOptions as Partial<FastifyRequest['routeOptions']> | undefined;
  const secrets = route?.config?.secrets ?? [];
  const paths = secrets.length === 0 ? request.server?.secretPaths : undefined;
  let url = redactUrl(request.url, route?.url, paths ? paths.names : secrets);
  // No declaring route answered (not found, refused by the router): the declared prefixes decide.
  if (paths) {
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const cut = paths.redact(path);
    if (cut) url = cut + (queryAt === -1 ? '' : url.slice(queryAt));
  }
  return { method: request.method, url, remoteAddress: request.ip };
}
