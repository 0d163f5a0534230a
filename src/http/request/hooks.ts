import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * One step of a request hook: it throws to refuse the request, and returns a promise only when it
 * has something to wait for (a body to read, a row to load). Most requests then pass every step
 * without a promise, a microtask or an async context of their own.
 */
export type HookStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

type Done = (error?: Error) => void;

function runFrom(
  steps: readonly HookStep[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = steps[i]!(request, reply);
    if (pending !== undefined) return pending.then(() => runFrom(steps, i + 1, request, reply));
  }
}

/**
 * `steps` as one callback-style hook (onRequest, preValidation, preHandler): run in order; a
 * synchronous throw reaches Fastify's hook runner like a rejected promise.
 */
export function hookOf(...steps: HookStep[]) {
  return function citadelHook(request: FastifyRequest, reply: FastifyReply, done: Done): void {
    const pending = runFrom(steps, 0, request, reply);
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  };
}
