import type { RetryConfig, RoutingTarget } from '../../../generated/routing.js';
import { providerField } from '../providers/shared/provider-fields.js';
import { providerOptionFields } from './provider-credentials.js';
import type { TargetSettings } from './plan.js';

/**
 * The contract's inheritance: a child's own value wins, settings it omits come from its parent;
 * `retry` and `cache` are replaced as a whole, never merged; `override_params` merge, child wins.
 */
export function inheritSettings(parent: TargetSettings | undefined, node: RoutingTarget): TargetSettings {
  const base: TargetSettings = parent ?? { options: {} };
  const options: Record<string, unknown> = { ...base.options };
  for (const field of providerOptionFields()) {
    const value = (node as Record<string, unknown>)[field];
    if (value !== undefined) options[field] = value;
  }
  // `model` is override_params.model; `base_url` is custom_host (whose rules it follows).
  const own = node.model !== undefined ? { ...node.override_params, model: node.model } : node.override_params;
  const overrideParams = own || base.overrideParams ? { ...base.overrideParams, ...own } : undefined;
  // A child with its own api_key or credential uses that, not the parent's other one.
  const credential = node.credential ?? (node.api_key === undefined ? base.credential : undefined);
  const apiKey = node.api_key ?? (node.credential === undefined ? base.apiKey : undefined);
  const out: TargetSettings = {
    provider: node.provider ?? base.provider,
    apiKey,
    customHost: node.custom_host ?? node.base_url ?? base.customHost,
    options,
    overrideParams,
    forwardHeaders: node.forward_headers ?? base.forwardHeaders,
    retry: node.retry ? retryWithDefaults(node.retry) : base.retry,
    requestTimeout: node.request_timeout ?? base.requestTimeout,
    firstByteTimeout: node.first_byte_timeout ?? base.firstByteTimeout,
    idleTimeout: node.idle_timeout ?? base.idleTimeout,
    inputGuardrails: node.input_guardrails ?? base.inputGuardrails,
    outputGuardrails: node.output_guardrails ?? base.outputGuardrails,
    cache: node.cache ?? base.cache,
  };
  if (credential !== undefined) out.credential = credential;
  return out;
}

/**
 * A config's retry with the contract's default filled in: the upstream's Retry-After is
 * honoured unless `use_retry_after_header` is false (the schema's default, which the routing
 * config's validation does not fill in itself).
 */
function retryWithDefaults(retry: RetryConfig): RetryConfig {
  return retry.use_retry_after_header === undefined ? { ...retry, use_retry_after_header: true } : retry;
}

/** The secret values a target's settings carry: the key, and every setting a provider declares secret. */
export function settingsSecrets(settings: TargetSettings): string[] {
  const out: string[] = [];
  if (settings.apiKey) out.push(settings.apiKey);
  for (const [field, value] of Object.entries(settings.options)) {
    if (!providerField(field)?.secret) continue;
    if (typeof value === 'string' && value) out.push(value);
    else if (value && typeof value === 'object') {
      out.push(JSON.stringify(value));
      const key = (value as Record<string, unknown>).private_key;
      if (typeof key === 'string') out.push(key);
    }
  }
  return out;
}
