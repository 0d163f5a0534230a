/**
 * How often one feed delivers. Delivery shares the event loop with the writes that cause it, and
 * its cost is mostly one socket write per subscriber, whatever the number of events in the batch.
 * Delivering after every commit would let a feed with many subscribers take most of the loop
 * (a thousand subscribers and a hundred commits a second: a hundred thousand socket writes). So
 * after a delivery that took `cost` ms, the feed waits `cost × (1 - share) / share` ms before the
 * next one: delivery takes at most `share` of the loop, and the events committed meanwhile go out
 * together. A feed with few subscribers costs little and delivers again at once.
 */
export class DeliveryPace {
  private nextAt = 0;

  constructor(
    /** The largest part of the event loop one feed's deliveries may take (0 to 1). */
    private readonly share: number,
    /** The longest wait between two deliveries, whatever they cost. */
    private readonly maxWaitMs: number,
  ) {}

  /** Milliseconds until the next delivery may start. */
  wait(now = performance.now()): number {
    return Math.max(0, this.nextAt - now);
  }

  /** A delivery that ended at `endedAt` took `costMs` of the loop. */
  delivered(costMs: number, endedAt = performance.now()): void {
    const wait = Math.min(this.maxWaitMs, (costMs * (1 - this.share)) / this.share);
    this.nextAt = endedAt + wait;
  }
}
