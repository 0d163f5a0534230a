/** The source of time. Every expiry reads it, so tests can move time forward. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move: for tests of expiries. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(seconds: number): void {
    this.current += seconds * 1000;
  }

  set(date: Date): void {
    this.current = date.getTime();
  }
}

/** ISO 8601 UTC with milliseconds: fixed width, so stored timestamps sort and compare as text. */
export function isoAfter(clock: Clock, seconds = 0): string {
  return new Date(clock.now().getTime() + seconds * 1000).toISOString();
}
