import type { IncomingHttpHeaders } from 'node:http';

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
