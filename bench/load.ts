import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  /** Responses outside 2xx plus connection errors and timeouts: any of them spoils the case. */
  failures: number;
  /**
   * CPU time of this whole process (every thread, the load generator included) during the run, in
   * microseconds: per request, a cost that other processes on the machine do not change the way
   * they change requests per second.
   */
  cpuMicros: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationSeconds: number;
  /**
   * A fixed number of requests sent one after another, timed here instead of by autocannon (whose
   * one-second sampling cannot time runs of a few slow requests such as bulk inserts).
   */
  amount?: number;
  connections: number;
}

/** One run against a loopback URL: autocannon for a duration, or `amount` timed requests. */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url))
    throw new Error(`benchmarks run on loopback only, not ${url}`);
  const cpu = process.cpuUsage();
  const result = options.amount ? await sequential(url, options, options.amount) : await timed(url, options);
  const used = process.cpuUsage(cpu);
  return { ...result, cpuMicros: used.user + used.system };
}

async function timed(url: string, options: LoadOptions): Promise<Omit<LoadResult, 'cpuMicros'>> {
  const result = await autocannon({
    url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    duration: options.durationSeconds,
    connections: options.connections,
    pipelining: 1,
    timeout: 30,
  });
  return {
    // Completed requests over the measured time (autocannon's per-second average skews short runs).
    requestsPerSecond: result.requests.total / result.duration,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    seconds: result.duration,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function sequential(
  url: string,
  options: LoadOptions,
  amount: number,
): Promise<Omit<LoadResult, 'cpuMicros'>> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  for (let i = 0; i < amount; i++) {
    const begin = performance.now();
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - begin);
    if (response.status < 200 || response.status > 299) failures += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: amount / seconds,
    // With few samples the 99th percentile is the slowest one.
    p99Ms: Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)]!),
    requests: amount,
    seconds,
    failures,
  };
}
