import { ExtensionRegistry, type ExtensionDefinition } from '../../kernel/engine/extension.js';
import { defineService } from '../../kernel/engine/services.js';
import type { UpstreamClient } from '../../kernel/upstream/upstream-client.js';
import type { Redaction } from './text-view.js';

export interface CheckInput {
  text: string;
  /** Whether there is any text at all (false for requests without a prompt). */
  hasText: boolean;
  phase: 'input' | 'output';
  model?: string;
  guardrailId: string;
  requestId: string;
  signal: AbortSignal;
}

export interface CheckResult {
  passed: boolean;
  /** What was found or missing, for error messages (never the matched text itself). */
  detail: string;
  /** Spans a redact action masks. */
  redactions?: Redaction[];
}

export type CheckRun = (input: CheckInput) => CheckResult | Promise<CheckResult>;

/** What a check's factory gets besides its config. */
export interface CheckEnv {
  /** Where the check sits in the gateway config (guardrails.<id>.checks[<i>]), for problem lines. */
  path: string;
  upstream: () => UpstreamClient;
}

/**
 * A guardrail check (the extension kind `guardrail-check`): `{ name, description, schema,
 * create(config, env) }`, where `name` is what a check's `type` names and `create` returns the
 * function that checks a text. A factory that finds its config unusable throws an
 * ExtensionConfigError with lines prefixed by env.path.
 */
export interface GuardrailCheckDefinition<Config = unknown> extends ExtensionDefinition<Config, CheckRun, CheckEnv> {
  /** Runs even when the request has no text (the model allow-list). */
  runsWithoutText?: boolean;
}

export function defineCheck<Config>(check: GuardrailCheckDefinition<Config>): GuardrailCheckDefinition<Config> {
  return check;
}

/** The check kinds of this gateway, built-in and from plugins. */
export const GUARDRAIL_CHECKS = defineService<ExtensionRegistry<GuardrailCheckDefinition>>('guardrail-checks');

/** Check names are the config's `type` values (camelCase, as the contract spells them). */
export function createCheckRegistry(): ExtensionRegistry<GuardrailCheckDefinition> {
  return new ExtensionRegistry<GuardrailCheckDefinition>('guardrail-check', undefined, /^[A-Za-z][A-Za-z0-9-]*$/, 'checks');
}
