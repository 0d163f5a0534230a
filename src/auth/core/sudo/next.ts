/**
 * Only same-site relative paths are accepted as a return target: "/x", never "//host", "/\\host"
 * or anything with a scheme, so a crafted ?next= cannot send the browser off-site. Characters
 * beyond ASCII come back percent-encoded: a Location header holds Latin-1 only, and `/☃` as given
 * would make the redirect fail with a 500 that also loses the session.
 */
export function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return null;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || ch === '\\') return null;
  }
  try {
    return value.replace(/[^\x21-\x7e]+/gu, (run) => encodeURIComponent(run));
  } catch {
    return null; // a lone surrogate: not text a browser could have sent
  }
}
