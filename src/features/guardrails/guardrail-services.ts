import { defineService, type GatewayServices } from '../../kernel/engine/services.js';
import { GuardrailRegistry } from './registry.js';
import { GUARDRAIL_CHECKS } from './check-kind.js';

/** The compiled guardrails (guardrails.<id>) of this gateway, made once per config generation. */
export const GUARDRAILS = defineService<GuardrailRegistry>('guardrails');

/** guardrails.<id>, compiled with the check kinds registered (built-ins and plugins). */
export function guardrailRegistry(services: GatewayServices): GuardrailRegistry {
  return services.once(GUARDRAILS, () => new GuardrailRegistry(services.config, services.require(GUARDRAIL_CHECKS), () => services.upstream));
}
