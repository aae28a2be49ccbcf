import type { GatewayServices } from '../../../kernel/engine/services.js';
import type { AnyRouteSpec } from '../../../contract/routes.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { Metrics } from '../../../kernel/observability/metrics.js';
import { ATTEMPTS, TARGET } from '../model-request.js';
import { answerFacts, requestedModel } from './answer-facts.js';
import { OTHER_MODEL } from './model-labels.js';
import { modelLineFields } from './request-line.js';
import { LINE_FIELDS } from '../../../kernel/engine/report.js';
import { endStreamSpan, genaiOperation, setAnswerAttributes } from './genai-spans.js';
import type { AnswerFacts } from './usage-scan.js';
import { REQUEST_SPAN, TRACING } from '../../../kernel/engine/tracing.js';

const CACHE_HEADER = 'x-gateway-cache-status';

/** The counters of model requests: tokens, cache lookups, refusals of the gateway's own limits, upstream 429s. */
export function modelCounters(metrics: Metrics) {
  return {
    tokens: metrics.counter(
      'gateway_tokens_total',
      'Tokens of answered model requests (not cache hits), by direction (input, output), provider and the model asked for (override_params applied) when the config names it, else other.',
      ['direction', 'provider', 'model'],
    ),
    cache: metrics.counter('gateway_cache_requests_total', 'Answer-cache lookups of model requests, by status (hit, miss, refresh, disabled).', ['status']),
    rateLimited: metrics.counter(
      'gateway_rate_limited_total',
      "Requests refused by the gateway's own rate limits (429), by the scope of the rule that refused (key, token, user, team, ip).",
      ['scope'],
    ),
    upstreamRateLimited: metrics.counter(
      'gateway_upstream_rate_limited_total',
      "Upstream attempts a provider refused with 429 (its own rate limit, not the gateway's), by provider.",
      ['provider'],
    ),
  };
}

/**
 * Registers the model-request metrics of a gateway: a per-request observer counting tokens
 * and cache statuses, adding model, tokens and attempts to the request's log line (and, with
 * traces on, writing the GenAI attributes of the request's span).
 * The circuit gauge is registered with the breakers (routing/resilience-services.ts).
 */
export function registerModelMetrics(services: GatewayServices): void {
  const metrics = services.metrics;
  const { tokens, cache } = modelCounters(metrics);
  const lowered: Record<string, string> = { HIT: 'hit', MISS: 'miss', REFRESH: 'refresh', DISABLED: 'disabled' };
  const tracing = services.get(TRACING);
  const labels = services.labels;
  const logLines = services.config.logging?.requests !== false;
  metrics.observe<GatewayContext<AnyRouteSpec>>('models', (ctx) => {
    const target = ctx.get(TARGET);
    if (!target) {
      // Every target skipped (circuits open): the line still lists them.
      if (logLines && ctx.has(ATTEMPTS)) ctx.set(LINE_FIELDS, modelLineFields(ctx, requestedModel(ctx), undefined));
      return;
    }
    const cacheStatus = ctx.responseHeaders[CACHE_HEADER];
    if (cacheStatus) cache.inc([lowered[cacheStatus] ?? cacheStatus.toLowerCase()]);
    const facts = ctx.error ? undefined : answerFacts(ctx);
    if (tracing) traceAnswer(ctx, target.provider, facts);
    const requested = requestedModel(ctx);
    if (logLines) ctx.set(LINE_FIELDS, modelLineFields(ctx, requested, facts));
    if (!facts || cacheStatus === 'HIT' || (facts.input === 0 && facts.output === 0)) return;
    // Only values the gateway knows become labels: a caller's model name never grows /metrics.
    const provider = labels.pick('provider', target.provider, 'other');
    const model = labels.pick('model', requested ?? facts.model, OTHER_MODEL);
    if (facts.input > 0) tokens.inc(['input', provider, model], facts.input);
    if (facts.output > 0) tokens.inc(['output', provider, model], facts.output);
  });
}

/** The GenAI attributes of a model request's server span; a streamed call's span ends here. */
function traceAnswer(ctx: GatewayContext<AnyRouteSpec>, provider: string, facts: AnswerFacts | undefined): void {
  endStreamSpan(ctx, facts);
  const span = ctx.get(REQUEST_SPAN);
  if (!span) return;
  span.setAttribute('gen_ai.system', provider);
  span.setAttribute('gen_ai.operation.name', genaiOperation(ctx.endpoint.operation));
  span.setAttribute('gen_ai.request.model', requestedModel(ctx));
  setAnswerAttributes(span, facts);
}
