import type { FastifyRequest } from 'fastify';

/*
 * Inside Citadel every path is relative to where it is mounted (`/login`); the mount path
 * (`config.basePath`, e.g. `/auth`) is added on the way out: redirects, `redirect_to` and the links
 * and form actions of pages. Paths that come in (the request URL, a Referer) lose it on the way in.
 */

/** A Citadel path as the browser must see it. Absolute URLs and protocol-relative ones stay as they are. */
export function publicPath(request: FastifyRequest, path: string): string {
  const base = request.server.config.basePath;
  return base && path.startsWith('/') && !path.startsWith('//') ? base + path : path;
}

/** A path the browser sent, relative to the mount point again; null when it lies outside it. */
export function mountedPath(request: FastifyRequest, path: string): string | null {
  const base = request.server.config.basePath;
  if (!base) return path;
  if (path === base) return '/';
  return path.startsWith(base + '/') || path.startsWith(base + '?') ? path.slice(base.length) || '/' : null;
}

const LOCAL_LINK = /(\s(?:href|action|src|formaction)=")\/(?!\/)/g;

/**
 * The page's own links and form actions, under the mount path. Safe on a finished page: values
 * from data are escaped, so `href="/` can only come from the templates themselves.
 */
export function mountLinks(markup: string, base: string): string {
  return base ? markup.replace(LOCAL_LINK, `$1${base}/`) : markup;
}
