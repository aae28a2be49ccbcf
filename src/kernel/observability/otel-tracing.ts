import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtlpConfig } from '../../generated/gateway.js';
import type { SpanKindName, SpanValue, TraceSpan, Tracing } from './tracing.js';

const KINDS: Record<SpanKindName, SpanKind> = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };

const HEADER_GETTER: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

const propagator = new W3CTraceContextPropagator();

class OtelSpan implements TraceSpan {
  constructor(readonly span: Span) {}

  setAttribute(key: string, value: SpanValue | undefined): void {
    if (value !== undefined) this.span.setAttribute(key, value);
  }

  fail(message: string, type?: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    if (type) this.span.setAttribute('error.type', type);
  }

  end(): void {
    this.span.end();
  }

  traceparent(): string {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, { set: (c, k, v) => (c[k] = v) });
    return carrier.traceparent ?? '';
  }

  context(): Context {
    return trace.setSpan(ROOT_CONTEXT, this.span);
  }
}

/** Loads the OTLP/HTTP exporter of the configured protocol (protobuf by default, or JSON). */
async function exporterFor(config: OtlpConfig & { endpoint: string }): Promise<SpanExporter> {
  const url = `${config.endpoint.replace(/\/+$/, '')}/v1/traces`;
  const options = { url, headers: config.headers ?? {}, timeoutMillis: 10_000 };
  if (config.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(options);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(options);
}

/**
 * Tracing with the OpenTelemetry SDK: its own tracer provider (nothing registered globally, so
 * several gateways in one process keep their own), batched OTLP/HTTP export, parent-based
 * ratio sampling, W3C trace context in and out; `runIn` keeps a parent in an AsyncLocalStorage
 * of its own.
 */
export class OtelTracing implements Tracing {
  private readonly store = new AsyncLocalStorage<OtelSpan>();

  private constructor(
    private readonly provider: TracerProvider,
    private readonly tracer: Tracer,
  ) {}

  static async create(config: OtlpConfig & { endpoint: string }): Promise<OtelTracing> {
    const exporter = await exporterFor(config);
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName ?? 'ai-gateway' }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio ?? 1) }),
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000, maxQueueSize: 8192, maxExportBatchSize: 512 })],
    });
    return new OtelTracing(provider, provider.getTracer('ai-gateway'));
  }

  startRequest(name: string, headers: IncomingHttpHeaders, attributes: Record<string, SpanValue>): TraceSpan {
    const parent = headers.traceparent ? propagator.extract(ROOT_CONTEXT, headers, HEADER_GETTER) : ROOT_CONTEXT;
    return new OtelSpan(this.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent));
  }

  startSpan(name: string, kind: SpanKindName, attributes?: Record<string, SpanValue | undefined>, parentSpan?: TraceSpan): TraceSpan {
    const parent = (parentSpan as OtelSpan | undefined) ?? this.store.getStore();
    const clean: Record<string, SpanValue> = {};
    if (attributes) for (const key in attributes) if (attributes[key] !== undefined) clean[key] = attributes[key]!;
    return new OtelSpan(this.tracer.startSpan(name, { kind: KINDS[kind], attributes: clean }, parent ? parent.context() : ROOT_CONTEXT));
  }

  runIn<T>(span: TraceSpan, fn: () => T): T {
    return this.store.run(span as OtelSpan, fn);
  }

  current(): TraceSpan | undefined {
    return this.store.getStore();
  }

  async shutdown(): Promise<void> {
    await this.provider.forceFlush().catch(() => undefined);
    await this.provider.shutdown().catch(() => undefined);
  }
}
