import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { PageRenderer } from '../../http/response/respond.ts';
import { defineEndpoint, type AnyEndpoint, type EndpointInput } from './endpoint.ts';
import { Envelope } from './envelope-schema.ts';
import {
  pageAsked,
  pagePagination,
  PagePaginationSchema,
  pageQuery,
  type PagePagination,
} from './page-pagination.ts';
import type { EventDetail } from './security-events.ts';

/**
 * A user's security events as a list: the query, and `GET /account/events`, which the core serves
 * whatever plugins are present (every capability records events; any of them may sign a user in).
 */

export const DEFAULT_EVENTS_PER_PAGE = 20;
export const MAX_EVENTS_PER_PAGE = 100;

/** A security event as the events list shows it. */
export interface SecurityEventView {
  id: number;
  type: string;
  /** What pages say happened, from the type's declaration. */
  label: string;
  created_at: string;
  ip: string | null;
  user_agent: string | null;
  detail: EventDetail;
}

/** One page of the events list: its events and where it stands among the pages. */
export interface EventPage {
  events: SecurityEventView[];
  pagination: PagePagination;
}

/**
 * One page of a user's events, newest first (ties by id, so pages never overlap), of the given
 * types only (the server's: those of plugins left out are not shown), each with its label.
 */
export async function listSecurityEvents(
  db: Kysely<Database>,
  userId: number,
  page: number,
  limit: number,
  types: ReadonlyMap<string, string>,
): Promise<EventPage> {
  const known = [...types.keys()];
  const rows = await db
    .selectFrom('security_events')
    .select(['id', 'type', 'created_at', 'ip', 'user_agent', 'detail'])
    .where('user_id', '=', userId)
    .where('type', 'in', known)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset((page - 1) * limit)
    .execute();
  const count = await db
    .selectFrom('security_events')
    .select((eb) => eb.fn.countAll().as('total'))
    .where('user_id', '=', userId)
    .where('type', 'in', known)
    .executeTakeFirst();
  const total = Number(count?.total ?? 0);
  return {
    events: rows.map((r) => ({
      id: Number(r.id),
      type: r.type,
      label: types.get(r.type) ?? r.type,
      created_at: r.created_at,
      ip: r.ip,
      user_agent: r.user_agent,
      detail: JSON.parse(r.detail) as EventDetail,
    })),
    pagination: pagePagination(page, limit, total),
  };
}

/** The page of the signed-in user's events a request asks for (`?page=&limit=`), of the server's types. */
export function callerEventPage(
  { services }: Pick<EndpointInput, 'services'>,
  userId: number,
  query: { page?: number; limit?: number },
): Promise<EventPage> {
  const { page, limit } = pageAsked(query, DEFAULT_EVENTS_PER_PAGE, MAX_EVENTS_PER_PAGE);
  return listSecurityEvents(services.db, userId, page, limit, services.securityEventTypes);
}

const SecurityEventSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  label: Type.String({ description: 'What happened, as the type declares it' }),
  created_at: Type.String(),
  ip: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
});

/** The page a plugin shows form clients for the list, and what it loads for it. */
export interface SecurityEventListPage {
  page: PageRenderer;
  pageProps?: (input: EndpointInput) => unknown;
}

/**
 * `GET /account/events`. The core serves it without a page (form clients are sent home); a plugin
 * with a page for it (the account center) declares it through this factory with that page, and
 * serves it in the core's place: one declaration, so the documents and the typed client see it the
 * same either way.
 */
export function securityEventListEndpoint(view?: SecurityEventListPage) {
  return defineEndpoint({
    method: 'GET',
    path: '/account/events',
    action: 'events.index',
    auth: 'session',
    ability: 'events:read',
    summary: "The user's security events, newest first",
    query: Type.Object(pageQuery(DEFAULT_EVENTS_PER_PAGE, MAX_EVENTS_PER_PAGE)),
    responses: {
      200: Envelope({
        data: Type.Object({ events: Type.Array(SecurityEventSchema), pagination: PagePaginationSchema }),
      }),
    },
    page: view?.page,
    pageProps: view?.pageProps,
    async handler(request) {
      const { events, pagination } = await callerEventPage(request, request.caller.user.id, request.query);
      return { status: 'success', data: { events, pagination }, render: true };
    },
  });
}

/** The endpoints the core serves whatever the plugins, each unless a plugin serves it with its page. */
export const CORE_ENDPOINTS = [securityEventListEndpoint()] as const;

/** The core's endpoints that no plugin serves in their place (same method, path and action). */
export function coreEndpointsLeft(pluginEndpoints: readonly AnyEndpoint[]): AnyEndpoint[] {
  return CORE_ENDPOINTS.filter(
    (core) =>
      !pluginEndpoints.some(
        (served) =>
          served.method === core.method && served.path === core.path && served.action === core.action,
      ),
  );
}
