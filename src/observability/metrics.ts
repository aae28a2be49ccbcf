import { Counter, Histogram, Registry, collectDefaultMetrics, Gauge } from 'prom-client';

/** The gateway's Prometheus metrics, served at /metrics. One registry per gateway instance. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'provider' | 'status'>;
  readonly duration: Histogram<'route' | 'provider'>;
  readonly upstreamDuration: Histogram<'provider' | 'operation'>;
  readonly upstreamErrors: Counter<'provider' | 'code'>;
  readonly inFlight: Gauge;

  /** Labelled children, looked up once per label set (prom-client hashes label objects on every call). */
  private readonly requestChildren = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  private readonly upstreamChildren = new Map<string, { observe(v: number): void }>();

  /** Counts one answered request and its duration. */
  recordRequest(route: string, provider: string, status: number, seconds: number): void {
    const key = `${route}\u0000${provider}\u0000${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = { count: this.requests.labels(route, provider, String(status)), time: this.duration.labels(route, provider) };
      this.requestChildren.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  }

  /** Records the time an upstream took to send its response headers. */
  recordUpstream(provider: string, operation: string, seconds: number): void {
    const key = `${provider}\u0000${operation}`;
    let child = this.upstreamChildren.get(key);
    if (!child) {
      child = this.upstreamDuration.labels(provider, operation);
      this.upstreamChildren.set(key, child);
    }
    child.observe(seconds);
  }

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: 'gateway_process_' });
    const buckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Requests answered, by route, provider and HTTP status.',
      labelNames: ['route', 'provider', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from request to the end of the answer (streams included), by route and provider.',
      labelNames: ['route', 'provider'],
      buckets,
      registers: [this.registry],
    });
    this.upstreamDuration = new Histogram({
      name: 'gateway_upstream_duration_seconds',
      help: 'Time from sending an upstream request to its response headers, by provider and operation.',
      labelNames: ['provider', 'operation'],
      buckets,
      registers: [this.registry],
    });
    this.upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed upstream attempts, by provider and gateway error code.',
      labelNames: ['provider', 'code'],
      registers: [this.registry],
    });
    this.inFlight = new Gauge({ name: 'gateway_requests_in_flight', help: 'Requests being served.', registers: [this.registry] });
  }
}
