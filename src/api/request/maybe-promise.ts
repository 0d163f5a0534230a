/** A value now, or a promise of it: what a step returns when it waits only sometimes. */
export type MaybePromise<T> = T | PromiseLike<T>;

/** A promise (or any thenable, as `await` treats it). */
export function isThenable<T>(value: MaybePromise<T>): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * `next(value)`: at once when `value` is not a promise, else once it settles. A request whose hooks
 * and reads answer at once then goes through without a promise or a turn of the event loop.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isThenable(value) ? Promise.resolve(value).then(next) : next(value);
}
