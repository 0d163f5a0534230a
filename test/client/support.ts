/**
 * A `fetch` with a cookie jar, for Node tests of cookie sessions through `createClient({ fetch })`
 * (what a browser does by itself, and what a server-side renderer does by forwarding `cookie`).
 */
export function cookieFetch(): { fetch: typeof fetch; jar: Map<string, string> } {
  const jar = new Map<string, string>();
  const jarFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line))
        jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
  return { fetch: jarFetch, jar };
}
