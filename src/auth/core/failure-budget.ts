import type { CitadelServices } from './services.ts';
import { TooManyRequestsError } from '../../core/errors.ts';
import type { CounterHit, LimitState } from '../../http/limits/rate-limit.ts';

/**
 * "At most N failures per window" that holds under parallel requests: every attempt is counted
 * atomically before its secret is checked, and an attempt that turns out not to be a failure (a
 * success, a malformed submission, a refusal) is given back. While attempts are in flight the
 * count is an over-estimate (refusing early, never late). A read-only check followed by a count
 * after the failure would let a burst all pass the check together.
 */
export class FailureBudget {
  constructor(
    private readonly services: CitadelServices,
    private readonly name: string,
    private readonly maxFailures: number,
    private readonly windowSeconds: number,
  ) {}

  /** The counter's key for `subject` (to settle it together with other counters). */
  key(subject: string): string {
    return `${this.name}:${subject}`;
  }

  /** The counter an attempt for `subject` adds to (to count it with others in one statement). */
  counter(subject: string): CounterHit {
    return { key: this.key(subject), windowSeconds: this.windowSeconds };
  }

  /**
   * Count one attempt; throws 429 when the subject has no failure left in its window (`onRefused`
   * runs first, with a key naming this window). A refused attempt checks nothing and is not a failure.
   */
  async begin(subject: string, onRefused?: (windowKey: string) => Promise<void>): Promise<void> {
    const counted = await this.services.rateLimiter.hit(this.key(subject), this.windowSeconds);
    await this.admit(subject, counted, onRefused);
  }

  /**
   * Judge an attempt already counted on `counter(subject)` (by `begin`, or with other counters by
   * `rateLimiter.hitMany`): over the budget it is given back and refused with 429.
   */
  async admit(
    subject: string,
    counted: LimitState,
    onRefused?: (windowKey: string) => Promise<void>,
  ): Promise<void> {
    if (counted.count <= this.maxFailures) return;
    const { rateLimiter, clock } = this.services;
    const key = this.key(subject);
    await rateLimiter.release(key);
    // The window's end (to the minute) tells this window from the next one.
    const windowEnd = Math.round((clock.now().getTime() / 1000 + counted.retryAfter) / 60);
    await onRefused?.(`${key}:locked:${windowEnd}`);
    throw new TooManyRequestsError(counted.retryAfter);
  }

  /** The attempt begun for `subject` succeeded or checked no secret: it is not a failure. */
  async notAFailure(subject: string): Promise<void> {
    await this.services.rateLimiter.release(this.key(subject));
  }
}
