// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    duration?: number;
    amount?: number;
    connections?: number;
    pipelining?: number;
    timeout?: number;
    /** Each request as `setupRequest` makes it (a fresh body per request). */
    requests?: { setupRequest?: (request: RequestSetup) => RequestSetup }[];
  }
  interface RequestSetup {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    /** Seconds the run took. */
    duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
