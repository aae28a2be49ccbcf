import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayConfig } from '../../generated/gateway.js';
import { defineService, type GatewayServices } from '../engine/services.js';
import { defineSlot } from '../engine/slot.js';

export type SpanValue = string | number | boolean;

/** One span of a trace, as the gateway's code sees it (whatever library records it). */
export interface TraceSpan {
  setAttribute(key: string, value: SpanValue | undefined): void;
  /** Marks the span failed (an error status with this message; `type` becomes error.type). */
  fail(message: string, type?: string): void;
  end(): void;
  /** The W3C traceparent that makes a callee's spans children of this one. */
  traceparent(): string;
}

export type SpanKindName = 'server' | 'client' | 'internal';

/**
 * Traces of this gateway: a server span per request (continuing the caller's W3C traceparent),
 * and children for target attempts, upstream calls and tool calls. On the request path the
 * parent travels in the request's context (PARENT_SPAN, set by the edge and by each attempt):
 * a slot read, nothing on every promise. Code that never sees the context (a tool call inside
 * the MCP transport) finds it through `runIn` (AsyncLocalStorage), which the stage that hands
 * the request over sets up. Only made when traces are exported: the code that would trace asks
 * `services.get(TRACING)` and does nothing when it is undefined.
 */
export interface Tracing {
  /** A server span for an incoming request, child of its traceparent when it carries one. */
  startRequest(name: string, headers: IncomingHttpHeaders, attributes: Record<string, SpanValue>): TraceSpan;
  /** A child of `parent`, else of the span `runIn` set (a root span when there is none). */
  startSpan(name: string, kind: SpanKindName, attributes?: Record<string, SpanValue | undefined>, parent?: TraceSpan): TraceSpan;
  /** Runs `fn` with `span` as the parent of every span it starts without naming one. */
  runIn<T>(span: TraceSpan, fn: () => T): T;
  current(): TraceSpan | undefined;
  /** Sends what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export const TRACING = defineService<Tracing>('tracing');
/** The server span of the request (set by the HTTP edge when traces are on). */
export const REQUEST_SPAN = defineSlot<TraceSpan>('request-span', 'the request span');
/** The span new children of this request hang under: the request's, or the target attempt's in progress. */
export const PARENT_SPAN = defineSlot<TraceSpan>('parent-span', 'the parent span');

/**
 * Starts exporting traces when `observability.otlp.endpoint` is set: loads the OpenTelemetry
 * packages (only then), provides the TRACING service and flushes it at shutdown. Without an
 * endpoint it does nothing, so tracing costs nothing.
 */
export async function setupTracing(services: GatewayServices, config: GatewayConfig = services.config): Promise<void> {
  const otlp = config.observability?.otlp;
  if (!otlp?.endpoint) return;
  const { OtelTracing } = await import('./otel-tracing.js');
  const tracing = services.provide(TRACING, await OtelTracing.create({ ...otlp, endpoint: otlp.endpoint }));
  services.closers.push(() => tracing.shutdown());
}
