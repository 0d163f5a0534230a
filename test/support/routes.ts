import type { FastifyInstance } from 'fastify';

/**
 * Every (method, URL pattern) in Fastify's route table, read from `printRoutes`, so that a new
 * route (a plugin's too) joins the tests that walk them all by itself. HEAD routes are left out
 * (Fastify adds one per GET).
 */
export function routePatterns(app: FastifyInstance): [string, string][] {
  const routes: [string, string][] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)(?:[└├]── )?(\S+) \(([^)]+)\)$/.exec(line.replace(/\s+$/, ''));
    if (!match) continue;
    const depth = match[1]!.length / 4;
    while (stack.length > 0 && stack.at(-1)!.depth >= depth) stack.pop();
    const parent = stack.at(-1)?.path ?? '';
    const segment = match[2]!;
    const path = parent === '' ? segment : parent === '/' ? `/${segment}` : parent + segment;
    stack.push({ depth, path });
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') routes.push([method, path]);
  }
  return routes;
}

/** The route table with every path parameter filled with a plausible value. */
export function routeTable(app: FastifyInstance): [string, string][] {
  return routePatterns(app).map(([method, path]) => [
    method,
    path.replace(/:file/, 'swagger-ui.css').replace(/:[a-z]+/gi, '1'),
  ]);
}
