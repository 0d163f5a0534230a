import type { FastifyRequest } from 'fastify';

const SECRET_QUERY_KEYS = /^(token|code|state|password|secret|proof|access_token|id_token)$/i;
/** Path segments that are themselves secrets (a magic-link, reset or email-change token). */
const SECRET_PATHS = /^(\/magic-link\/verify\/|\/reset-password\/|\/account\/email\/verify\/)[^/?]+/;

/** The URL as it may be logged: secret path segments and query values replaced. */
export function redactUrl(url: string): string {
  const [path, query] = url.split('?', 2) as [string, string | undefined];
  const safePath = path.replace(SECRET_PATHS, '$1[redacted]');
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (SECRET_QUERY_KEYS.test(key)) params.set(key, '[redacted]');
  return `${safePath}?${params.toString()}`;
}

/** Request log lines: method, redacted URL, remote address; never headers, cookies or bodies. */
export function redactedRequestSerializer(request: FastifyRequest) {
  return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
}
