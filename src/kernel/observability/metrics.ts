import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { ScrapedGauge, SeriesCounter, SeriesHistogram } from './series-metrics.js';

const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Registrable = Parameters<Registry['registerMetric']>[0];

/** Called once per answered request, after its answer is written (features add token, cache... counts). */
export type RequestObserver<C> = (ctx: C, status: number) => void;

/**
 * The gateway's Prometheus metrics, served at /metrics. One registry per gateway instance.
 * Series updated on the request path are SeriesCounter/SeriesHistogram (a Map lookup and
 * plain arithmetic per update); gauges that describe state are read at scrape time. Node's
 * process metrics keep their standard `process_*` and `nodejs_*` names. Features define their
 * own series with `counter()` / `scrapedGauge()` and count per request with `observe()`.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new SeriesCounter('gateway_requests_total', 'Requests answered, by route, provider and HTTP status.', ['route', 'provider', 'status']);
  readonly duration = new SeriesHistogram(
    'gateway_request_duration_seconds',
    'Time from request to the end of the answer (streams included), by route, provider and HTTP status.',
    ['route', 'provider', 'status'],
    BUCKETS,
  );
  readonly upstreamDuration = new SeriesHistogram(
    'gateway_upstream_duration_seconds',
    'Time from sending an upstream request to its response headers, by provider and operation.',
    ['provider', 'operation'],
    BUCKETS,
  );
  readonly upstreamErrors: Counter<'provider' | 'code'>;
  /** Requests being served: a plain count, read when /metrics is scraped (no metric call per request). */
  readonly inFlight = { value: 0 };
  /** Per-request observers the features register (run by the HTTP edge after each answer). */
  readonly observers: Array<RequestObserver<unknown>> = [];
  private readonly own = new Map<string, SeriesCounter | ScrapedGauge>();

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
    for (const metric of [this.requests, this.duration, this.upstreamDuration]) this.registry.registerMetric(metric as unknown as Registrable);
    this.upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed upstream attempts, by provider and gateway error code.',
      labelNames: ['provider', 'code'],
      registers: [this.registry],
    });
    const inFlight = this.inFlight;
    const gauge = new ScrapedGauge('gateway_requests_in_flight', 'Requests being served.', () => [{ labels: {}, value: inFlight.value }]);
    this.registry.registerMetric(gauge as unknown as Registrable);
  }

  /** Counts one answered request and its duration. */
  recordRequest(route: string, provider: string, status: number, seconds: number): void {
    const statusText = String(status);
    this.requests.inc([route, provider, statusText]);
    this.duration.observe([route, provider, statusText], seconds);
  }

  /** Records the time an upstream took to send its response headers. */
  recordUpstream(provider: string, operation: string, seconds: number): void {
    this.upstreamDuration.observe([provider, operation], seconds);
  }

  /** A counter of this registry, made on first request (the same one for every later call with its name). */
  counter(name: string, help: string, labelNames: readonly string[]): SeriesCounter {
    const existing = this.own.get(name);
    if (existing instanceof SeriesCounter) return existing;
    const counter = new SeriesCounter(name, help, labelNames);
    this.own.set(name, counter);
    this.registry.registerMetric(counter as unknown as Registrable);
    return counter;
  }

  /**
   * A gauge whose samples `read` lists when /metrics is scraped (state such as breaker
   * positions: nothing is updated on the request path). A later call with the same name
   * replaces the reader (a reload's new registry).
   */
  scrapedGauge(name: string, help: string, read: () => Iterable<{ labels: Record<string, string>; value: number }>): void {
    const existing = this.own.get(name);
    if (existing instanceof ScrapedGauge) {
      existing.read = read;
      return;
    }
    const gauge = new ScrapedGauge(name, help, read);
    this.own.set(name, gauge);
    this.registry.registerMetric(gauge as unknown as Registrable);
  }

  /** Adds a per-request observer (once per `key`, so a capability set up again does not count twice). */
  observe<C>(key: string, observer: RequestObserver<C>): void {
    // Each observer is called with the context of the requests its feature serves.
    const tagged = observer as RequestObserver<unknown> & { key?: string };
    tagged.key = key;
    const at = this.observers.findIndex((o) => (o as { key?: string }).key === key);
    if (at >= 0) this.observers[at] = tagged;
    else this.observers.push(tagged);
  }
}
