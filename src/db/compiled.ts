import type { CompiledQuery } from 'kysely';

/**
 * A query of fixed shape built and compiled once, then run with each request's values: Kysely's
 * builder and compiler cost more than the statement itself on the hottest reads (GET /me, bearer
 * requests). The values must be given in the order the compiled SQL lists its parameters.
 */
export function withParameters<R>(
  compiled: CompiledQuery<R>,
  parameters: readonly unknown[],
): CompiledQuery<R> {
  if (parameters.length !== compiled.parameters.length)
    throw new Error(`expected ${compiled.parameters.length} parameters, got ${parameters.length}`);
  return { ...compiled, parameters };
}

/** A value computed on first use (a compiled query needs the database handle it is built on). */
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}
