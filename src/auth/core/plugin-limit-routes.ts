import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { CitadelPlugin } from './plugin.ts';
import { ConfigError } from '../../core/errors.ts';
import { pluginRuleMatches, type PluginRateLimit, type RateLimitInput } from './endpoint.ts';
import { hitRateLimits } from './endpoint-routes.ts';

/**
 * Every plugin's `rateLimits`, checked at start-up: each rule's name once across the server (two
 * rules sharing a counter would count each other's requests).
 */
export function pluginRateLimits(plugins: readonly CitadelPlugin[]): PluginRateLimit[] {
  const owners = new Map<string, string>();
  const rules: PluginRateLimit[] = [];
  for (const plugin of plugins) {
    for (const rule of plugin.rateLimits ?? []) {
      const owner = owners.get(rule.name);
      if (owner !== undefined)
        throw new ConfigError(`plugins "${owner}" and "${plugin.id}" both name a rate limit "${rule.name}"`);
      owners.set(rule.name, plugin.id);
      rules.push(rule);
    }
  }
  return rules;
}

function recordOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * Put the plugins' rules on the routes registered from here on: a route that a rule matches (by
 * method and path below `basePath`) gets one preValidation hook that hits them (429 past a limit).
 * Routes no rule matches get nothing, so they pay nothing.
 */
export function applyPluginRateLimits(
  app: FastifyInstance,
  rules: readonly PluginRateLimit[],
  basePath: string,
): void {
  if (rules.length === 0) return;
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat().map(String);
    const path =
      basePath && route.url.startsWith(basePath) ? route.url.slice(basePath.length) || '/' : route.url;
    const own = rules.filter((rule) => pluginRuleMatches(rule, methods, path));
    if (own.length === 0) return;
    const count = async (request: FastifyRequest) => {
      // Only the rules for this request's method (a route may serve several, HEAD with GET).
      const applying = own.filter(
        (rule) => rule.method === undefined || [rule.method].flat().some((m) => m === request.method),
      );
      const input: RateLimitInput = {
        params: recordOf(request.params),
        query: recordOf(request.query),
        body: recordOf(request.body),
        errors: {},
        ip: request.ip,
        caller: request.caller ?? null,
      };
      await hitRateLimits(applying, request, input);
    };
    route.preValidation = [...[route.preValidation ?? []].flat(), count];
  });
}
