import type { PageRenderer } from '../../http/response/respond.ts';
import { defineEndpoint, type EndpointAuth, type PageInput } from './endpoint.ts';
import { Envelope } from './envelope-schema.ts';

/**
 * A page and nothing else (a form's GET, a "check your email" page): HTML for browsers, an info
 * envelope `{ action, status: 'info' }` for JSON clients. Marked `pageOnly`, so the typed client
 * has no method for it.
 */
export function pageEndpoint<const Path extends string, const Action extends string>(options: {
  path: Path;
  action: Action;
  summary: string;
  page: PageRenderer;
  pageProps?: (input: PageInput) => unknown;
  auth?: EndpointAuth;
  bearer?: false;
}) {
  const { auth = 'optional', ...rest } = options;
  const endpoint = defineEndpoint({
    method: 'GET',
    auth,
    ...rest,
    responses: { 200: Envelope() },
    async handler() {
      return { status: 'info', render: true };
    },
  });
  return { ...endpoint, pageOnly: true as const };
}
