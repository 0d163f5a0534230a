import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  requests: number;
  /** Responses outside 2xx plus connection errors and timeouts: any of them spoils the case. */
  failures: number;
}

export interface LoadOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  durationSeconds: number;
  connections: number;
}

/** One autocannon run against a loopback URL. */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url))
    throw new Error(`benchmarks run on loopback only, not ${url}`);
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
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
