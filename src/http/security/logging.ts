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
  return {
    method: request.method,
    url: redactUrl(request.url, route?.url, secrets),
    remoteAddress: request.ip,
  };
}
