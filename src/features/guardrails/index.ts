/**
 * The public entry of the guardrails feature: what other features (models, mcp), the stages
 * and the plugin API may use. Everything else in this folder is its own business.
 */
export { guardrailsCapability } from './guardrails-capability.js';
export { GUARDRAILS, guardrailRegistry } from './guardrail-services.js';
export { GuardrailConfigError, GuardrailRegistry, type GuardrailAction, type GuardrailOutcome, type GuardrailRunContext } from './registry.js';
export { TextView, type TextPiece, type Redaction } from './text-view.js';
export { inputPieces, outputPieces } from './extract.js';
export { assembleStream, replay, type AssembledStream } from './stream-text.js';
export {
  createCheckRegistry,
  defineCheck,
  GUARDRAIL_CHECKS,
  type CheckEnv,
  type CheckInput,
  type CheckResult,
  type CheckRun,
  type GuardrailCheckDefinition,
} from './check-kind.js';
export { guardrailsFeature } from './guardrails-feature.js';
