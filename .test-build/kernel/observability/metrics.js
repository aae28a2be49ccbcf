import { Counter, Registry, collectDefaultMetrics, Gauge } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './series-metrics.js';
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/**
 * The gateway's Prometheus metrics, served at /metrics. One registry per gateway instance.
 * The per-request series (requests, durations) are SeriesCounter/SeriesHistogram, which cost a
 * Map lookup per update; the rest are prom-client's own.
 */
export class Metrics {
    registry = new Registry();
    requests = new SeriesCounter('gateway_requests_total', 'Requests answered, by route, provider and HTTP status.', ['route', 'provider', 'status']);
    duration = new SeriesHistogram('gateway_request_duration_seconds', 'Time from request to the end of the answer (streams included), by route and provider.', ['route', 'provider'], BUCKETS);
    upstreamDuration = new SeriesHistogram('gateway_upstream_duration_seconds', 'Time from sending an upstream request to its response headers, by provider and operation.', ['provider', 'operation'], BUCKETS);
    upstreamErrors;
    inFlight;
    constructor(defaults = true) {
        if (defaults)
            collectDefaultMetrics({ register: this.registry, prefix: 'gateway_process_' });
        for (const metric of [this.requests, this.duration, this.upstreamDuration]) {
            this.registry.registerMetric(metric);
        }
        this.upstreamErrors = new Counter({
            name: 'gateway_upstream_errors_total',
            help: 'Failed upstream attempts, by provider and gateway error code.',
            labelNames: ['provider', 'code'],
            registers: [this.registry],
        });
        this.inFlight = new Gauge({ name: 'gateway_requests_in_flight', help: 'Requests being served.', registers: [this.registry] });
    }
    /** Counts one answered request and its duration. */
    recordRequest(route, provider, status, seconds) {
        this.requests.inc([route, provider, String(status)]);
        this.duration.observe([route, provider], seconds);
    }
    /** Records the time an upstream took to send its response headers. */
    recordUpstream(provider, operation, seconds) {
        this.upstreamDuration.observe([provider, operation], seconds);
    }
}
//# sourceMappingURL=metrics.js.map