import type { GatewayConfig } from '../../generated/gateway.js';
import type { TraceSpan, Tracing } from '../observability/tracing.js';
import { defineService, type GatewayServices } from './services.js';
import { defineSlot } from './slot.js';

/** The tracing of this gateway (kernel/observability/tracing.ts), provided only when traces are exported. */
export const TRACING = defineService<Tracing>('tracing');
/** The server span of the request (set by the HTTP edge when traces are on). */
export const REQUEST_SPAN = defineSlot<TraceSpan>('request-span', 'the request span', { edge: true });
/** The span new children of this request hang under: the request's, or the target attempt's in progress. */
export const PARENT_SPAN = defineSlot<TraceSpan>('parent-span', 'the parent span', { edge: true });

/**
 * Starts exporting traces when `observability.otlp.endpoint` is set: loads the OpenTelemetry
 * packages (only then), provides the TRACING service and flushes it at shutdown. Without an
 * endpoint it does nothing, so tracing costs nothing.
 */
export async function setupTracing(services: GatewayServices, config: GatewayConfig = services.config): Promise<void> {
  const otlp = config.observability?.otlp;
  if (!otlp?.endpoint) return;
  const { OtelTracing } = await import('../observability/otel-tracing.js');
  const tracing = services.provide(TRACING, await OtelTracing.create({ ...otlp, endpoint: otlp.endpoint }));
  services.closers.push(() => tracing.shutdown());
}
