import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUse } from '../db/open.ts';
import { classifySignIn } from './sign-in-outcome.ts';

/** Seconds; spans a cached read (sub-millisecond) to an Argon2 sign-in and a slow list. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Label for requests that matched no route, so scanners cannot grow the label set without bound. */
const UNMATCHED = '(unmatched)';

/**
 * The Prometheus metrics of one server, in a registry of its own (several servers may share a
 * process, in tests): requests, sign-ins, rate-limit refusals, database pool use, and the
 * process's defaults (memory, CPU, event-loop lag).
 */
export class CitadelMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route' | 'method' | 'status'>;
  private readonly signIns: Counter<'method' | 'outcome'>;
  private readonly refusals: Counter<'route'>;

  constructor(poolUse: () => PoolUse) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request to response, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.signIns = new Counter({
      name: 'citadel_sign_ins_total',
      help: 'Sign-in attempts by method (password, magic_link, social, pipeline) and outcome',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.refusals = new Counter({
      name: 'citadel_rate_limit_refusals_total',
      help: 'Requests refused by a rate limit (429), by route template',
      labelNames: ['route'],
      registers,
    });
    new Gauge({
      name: 'citadel_db_pool_connections',
      help: 'Database pool connections: total open, idle, and requests waiting for one',
      labelNames: ['state'],
      registers,
      collect() {
        const use = poolUse();
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request (the onResponse hook). */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? UNMATCHED;
    const labels = { route, method: request.method, status: reply.statusCode };
    this.requests.inc(labels);
    this.latency.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) this.refusals.inc({ route });
    const signIn = classifySignIn(request, reply);
    if (signIn) this.signIns.inc(signIn);
  }
}

/** GET /metrics, in the Prometheus text format, to callers bearing the metrics token. */
export function installMetrics(
  app: FastifyInstance,
  metrics: CitadelMetrics,
  tokenMatches: (authorization: string | undefined) => boolean,
): void {
  app.get('/metrics', { config: { sessionless: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!tokenMatches(request.headers.authorization)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ status: 'error', message: 'The metrics token is missing or wrong.' });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
