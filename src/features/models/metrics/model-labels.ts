import type { GatewayConfig } from '../../../generated/gateway.js';
import type { RoutingTarget } from '../../../generated/routing.js';
import type { KnownLabels } from '../../../kernel/observability/known-labels.js';

/** The label of a model no config names (callers' free text never becomes a label). */
export const OTHER_MODEL = 'other';

/** A model allow-list entry with a glob character is a pattern, not a name. */
const PATTERN = /[*?]/;

function targetModels(target: RoutingTarget, out: string[]): void {
  const model = target.override_params?.model;
  if (typeof model === 'string') out.push(model);
  for (const child of target.targets ?? []) targetModels(child, out);
}

/**
 * The model names a gateway config names: metrics.models, the override_params models of
 * configs.<name> (at any depth), and the names (not patterns) of modelAllowList checks.
 */
export function configuredModels(config: GatewayConfig): string[] {
  const out: string[] = [...(config.metrics?.models ?? [])];
  for (const routing of Object.values(config.configs ?? {})) targetModels(routing, out);
  for (const guardrail of Object.values(config.guardrails ?? {})) {
    for (const check of guardrail.checks) {
      const models = (check as { type: string; models?: unknown }).models;
      if (check.type !== 'modelAllowList' || !Array.isArray(models)) continue;
      for (const name of models) if (typeof name === 'string' && !PATTERN.test(name)) out.push(name);
    }
  }
  return out;
}

/** Registers the providers and the configured models as the label values model metrics may show. */
export function registerModelLabels(labels: KnownLabels, config: GatewayConfig, providerIds: readonly string[]): void {
  labels.add('provider', ...providerIds);
  labels.add('model', ...configuredModels(config));
}
