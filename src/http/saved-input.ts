import type { FastifyRequest } from 'fastify';
import { refillableInput } from './respond.ts';

/** A form's input kept across a detour (sudo), for one page, one user, once. */
const KEY = 'saved_input';

interface SavedInput {
  path: string;
  userId: number;
  input: Record<string, string>;
}

export function saveInputForPage(request: FastifyRequest, path: string, userId: number): void {
  const input = refillableInput(request);
  if (Object.keys(input).length > 0) request.session.set(KEY, { path, userId, input } satisfies SavedInput);
}

/** The input saved for the page being rendered now, taken out of the session. */
export function takeSavedInput(request: FastifyRequest): Record<string, string> | undefined {
  const saved = request.session.get<SavedInput>(KEY);
  if (!saved || request.method !== 'GET') return undefined;
  const path = request.url.split('?')[0];
  if (saved.path.split('?')[0] !== path || saved.userId !== request.session.userId) return undefined;
  request.session.delete(KEY);
  return saved.input;
}
