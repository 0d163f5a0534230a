import type { FastifyInstance } from 'fastify';
import multipart, { type FastifyMultipartOptions } from '@fastify/multipart';

/**
 * @fastify/multipart for fields only (`files: 0`, so no part is ever a file). The plugin adds an
 * async onRequest hook (a 'close' listener on every response) and an async onResponse hook, both
 * to delete temporary upload files, which a field-only parser never writes; on every request of
 * the server they cost two promises and a listener. So the plugin is registered through a view of
 * the instance that takes its parser and request decorators and leaves out those two hooks.
 */
export async function registerMultipartFields(
  app: FastifyInstance,
  limits: NonNullable<FastifyMultipartOptions['limits']>,
): Promise<void> {
  if (limits.files !== 0) throw new Error('registerMultipartFields parses fields only (files: 0).');
  const fieldsOnly = new Proxy(app, {
    get(target, property, receiver) {
      if (property === 'addHook')
        return (name: string, ...rest: unknown[]) => {
          if (name === 'onRequest' || name === 'onResponse') return fieldsOnly;
          return (target.addHook as (...args: unknown[]) => unknown).call(target, name, ...rest);
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  await new Promise<void>((resolve, reject) => {
    (
      multipart as unknown as (
        app: FastifyInstance,
        options: FastifyMultipartOptions,
        done: (error?: Error) => void,
      ) => void
    )(fieldsOnly, { limits }, (error) => (error ? reject(error) : resolve()));
  });
}
