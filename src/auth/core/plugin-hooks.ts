import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { AfterHook, BeforeHook, CitadelPlugin, HookMatch } from './plugin.ts';
import type { AnyEndpoint, EndpointResult } from './endpoint.ts';

/*
 * Plugins' hooks, resolved once at start-up: each endpoint a matcher selects gets a handler that
 * runs its before and after lists around the declared one; every other endpoint is served as
 * declared (the same object), so a hook costs nothing on a request it does not select.
 */

function textMatches(matcher: string | RegExp, value: string): boolean {
  return typeof matcher === 'string'
    ? matcher === value
    : new RegExp(matcher.source, matcher.flags).test(value);
}

/** Whether a matcher selects an endpoint (every criterion it gives holds). */
export function hookSelects(match: HookMatch, endpoint: AnyEndpoint): boolean {
  if (match.method !== undefined && ![match.method].flat().includes(endpoint.method)) return false;
  if (match.action !== undefined) {
    const { action } = match;
    const ok =
      typeof action === 'string' || action instanceof RegExp
        ? textMatches(action, endpoint.action)
        : action.includes(endpoint.action);
    if (!ok) return false;
  }
  if (match.path !== undefined) {
    const { path } = match;
    const paths = [endpoint.path, ...(endpoint.aliases ?? []).map((alias) => alias.path)];
    const test = typeof path === 'function' ? path : (candidate: string) => textMatches(path, candidate);
    if (!paths.some(test)) return false;
  }
  return true;
}

/** An object schema with optional properties added (its other keywords kept); others as they are. */
function withOptional(schema: TSchema | undefined, added: TProperties): TSchema | undefined {
  const object = schema as TObject | undefined;
  if (!object || object.type !== 'object' || !object.properties || Object.keys(added).length === 0)
    return schema;
  const optional = Object.fromEntries(
    Object.entries(added).map(([key, value]) => [key, Type.Optional(value)]),
  );
  // Optional, so `required` stays as it is.
  return { ...object, properties: { ...object.properties, ...optional } } as TObject;
}

/** Each success answer's schema (2xx) with what the after hooks declare they add. */
function withAdditions(endpoint: AnyEndpoint, after: readonly AfterHook[]): AnyEndpoint['responses'] {
  const fields: TProperties = Object.fromEntries(
    after.flatMap((hook) => Object.entries(hook.schema?.fields ?? {})),
  );
  const data: TProperties = Object.fromEntries(
    after.flatMap((hook) => Object.entries(hook.schema?.data ?? {})),
  );
  if (Object.keys(fields).length === 0 && Object.keys(data).length === 0) return endpoint.responses;
  const responses: Record<number, TSchema> = { ...endpoint.responses };
  for (const [status, schema] of Object.entries(responses)) {
    if (Number(status) < 200 || Number(status) > 299) continue;
    const answer = withOptional(schema, fields) as TObject;
    responses[Number(status)] =
      Object.keys(data).length > 0 && answer.properties?.data
        ? ({
            ...answer,
            properties: { ...answer.properties, data: withOptional(answer.properties.data, data)! },
          } as TObject)
        : answer;
  }
  return responses;
}

/** The endpoint as served with the hooks that select it, or the same object when none does. */
export function withHooks(
  endpoint: AnyEndpoint,
  before: readonly BeforeHook[],
  after: readonly AfterHook[],
): AnyEndpoint {
  const befores = before.filter((hook) => hookSelects(hook.match, endpoint)).map((hook) => hook.handler);
  const selectedAfter = after.filter((hook) => hookSelects(hook.match, endpoint));
  const afters = selectedAfter.map((hook) => hook.handler);
  if (befores.length === 0 && afters.length === 0) return endpoint;
  const target = { method: endpoint.method, path: endpoint.path, action: endpoint.action };
  const declared = endpoint.handler as (input: never) => Promise<EndpointResult>;
  const handler = async (input: never): Promise<EndpointResult> => {
    // A hook that answers at once is not awaited (no microtask on the endpoint's path).
    for (const hook of befores) {
      let refusal = hook(input, target);
      if (refusal instanceof Promise) refusal = await refusal;
      if (refusal) return refusal;
    }
    let result = await declared(input);
    for (const hook of afters) {
      let added = hook(input, result, target);
      if (added instanceof Promise) added = await added;
      if (!added) continue;
      result = {
        ...result,
        ...(added.data && { data: { ...result.data, ...added.data } }),
        ...(added.fields && { fields: { ...result.fields, ...added.fields } }),
      };
    }
    return result;
  };
  return { ...endpoint, handler, responses: withAdditions(endpoint, selectedAfter) } as AnyEndpoint;
}

/** Every plugin's endpoint hooks, in plugin order. */
export function pluginHooks(plugins: readonly CitadelPlugin[]): { before: BeforeHook[]; after: AfterHook[] } {
  return {
    before: plugins.flatMap((plugin) => plugin.hooks?.before ?? []),
    after: plugins.flatMap((plugin) => plugin.hooks?.after ?? []),
  };
}
