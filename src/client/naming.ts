/**
 * How the typed client names the auth endpoints (docs/client.md, "Method names"). The same rule is
 * written twice: here for the run time, over the list `GET /endpoints` serves, and in `auth-types.ts`
 * for the types, over the endpoint declarations of `typeof config`. Kept free of any import.
 */

/** One JSON endpoint: its method and Express-style path (`/tokens/:id`). */
export interface ClientRoute {
  method: string;
  path: string;
}

const segmentsOf = (path: string): string[] => path.split('/').filter((segment) => segment !== '');
const isParam = (segment: string): boolean => segment.startsWith(':');
/** `two-factor` → `twoFactor`, `.well-known` → `wellKnown`, `jwks.json` → `jwksJson`. */
const camel = (segment: string): string =>
  segment
    .replace(/\./g, '-')
    .replace(/^-+/, '')
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The static segments of a path, camel-cased and joined by dots (`/two-factor/enroll/start` → `twoFactor.enroll.start`). */
export function chainOf(path: string): string {
  return segmentsOf(path)
    .filter((segment) => !isParam(segment))
    .map(camel)
    .join('.');
}

/** Whether the path's last segment is a parameter (`/tokens/:id`). */
export function endsWithParam(path: string): boolean {
  const last = segmentsOf(path).at(-1);
  return last !== undefined && isParam(last);
}

/**
 * A collection: a chain with a GET of its own (a list) and a route whose path ends in a parameter
 * (an item), like `GET /tokens` and `DELETE /tokens/:id`.
 */
function isCollection(routes: readonly ClientRoute[]): boolean {
  return (
    routes.some((route) => route.method === 'GET' && !endsWithParam(route.path)) &&
    routes.some((route) => endsWithParam(route.path))
  );
}

/** The verb an endpoint gets when its chain alone does not name it (`onChain`: the routes of its chain, itself included). */
function verbOf(route: ClientRoute, onChain: readonly ClientRoute[]): string {
  const collection = isCollection(onChain);
  switch (route.method) {
    case 'GET':
      return !endsWithParam(route.path) && collection ? 'list' : 'get';
    case 'POST':
      return collection ? 'create' : 'send';
    case 'PUT':
      return 'replace';
    case 'PATCH':
      return 'update';
    default:
      return 'delete';
  }
}

/**
 * Name → route for every route. A route is named by its chain, unless another route has the same
 * chain or a longer one starting with it: then a verb is added (`tokens.list`, `magicLink.send`).
 * Where two routes still get one name, the first keeps it.
 */
export function clientNames(routes: readonly ClientRoute[]): Map<string, ClientRoute> {
  const chains = routes.map((route) => chainOf(route.path));
  const names = new Map<string, ClientRoute>();
  routes.forEach((route, i) => {
    const chain = chains[i]!;
    const onChain = routes.filter((_, j) => chains[j] === chain);
    const extended = chains.some((other) => chain !== '' && other.startsWith(`${chain}.`));
    const name =
      onChain.length > 1 || extended || chain === ''
        ? `${chain === '' ? '' : `${chain}.`}${verbOf(route, onChain)}`
        : chain;
    if (!names.has(name)) names.set(name, route);
  });
  return names;
}
