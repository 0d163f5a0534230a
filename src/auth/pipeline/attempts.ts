import { type CitadelServices, type PendingContext, claimOnce } from '../../plugin-api.ts';
import { pipelineOptions } from './options.ts';

/**
 * Proof attempts of one pending context, counted in the shared rate-limit store (database or
 * Redis) rather than in the session: concurrent requests each load their own copy of the session,
 * so a session counter alone would let a burst of parallel guesses each see an unused budget.
 *
 * `tries` is counted before a proof is checked, `invalid` after a submission turned out malformed
 * (422, no proof checked); each context's good proofs are `completed`. So the wrong proofs so far,
 * this one included, are at most tries - invalid - completed: exact when requests come one by one,
 * an over-estimate (refusing early, never late) when they race.
 *
 * The counters are never reset early: they live as long as a context can (pendingActionTtl), so a
 * stale copy of the session saved by a concurrent request cannot bring back a spent budget or a
 * passed step.
 */
export class ProofAttempts {
  constructor(
    private readonly services: CitadelServices,
    private readonly pending: PendingContext,
  ) {}

  private key(kind: string): string {
    return `pipeline:${this.pending.id}:${kind}`;
  }

  /**
   * A good proof passes its step once: of two concurrent requests with the same good code only
   * the first to claim the step goes on (the session copies cannot tell them apart).
   */
  async claimPass(actionId: string): Promise<boolean> {
    return claimOnce(
      this.services,
      this.key(`passed:${this.pending.completed.length}:${actionId}`),
      this.window,
    );
  }

  private get window(): number {
    return this.services.config.limits.pendingActionTtl;
  }

  /** Count this attempt; false when the context has no wrong proof left to spend on it. */
  async begin(): Promise<boolean> {
    const { rateLimiter } = this.services;
    const tries = await rateLimiter.hit(this.key('tries'), this.window);
    const invalid = await rateLimiter.store.peek(this.key('invalid'));
    const spent = tries.count - invalid.count - this.pending.completed.length;
    return spent <= pipelineOptions(this.services).maxCodeAttempts;
  }

  /** The submission was malformed: it checked no proof, so it does not use up an attempt. */
  async malformed(): Promise<void> {
    await this.services.rateLimiter.hit(this.key('invalid'), this.window);
  }

  /** After a wrong proof: how many wrong proofs the context has had (this one included). */
  async failures(): Promise<number> {
    const { rateLimiter } = this.services;
    const tries = await rateLimiter.store.peek(this.key('tries'));
    const invalid = await rateLimiter.store.peek(this.key('invalid'));
    return tries.count - invalid.count - this.pending.completed.length;
  }
}
