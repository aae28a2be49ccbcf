import type { Capability } from '../../kernel/capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { createCheckRegistry, GUARDRAIL_CHECKS } from './check-kind.js';
import { BUILTIN_CHECKS } from './checks/builtin-checks.js';
import { GuardrailConfigError } from './registry.js';
import { guardrailRegistry } from './guardrail-services.js';

/**
 * Guardrails, shared by the model routes (the guardrail stage, routing configs that name
 * guardrails) and the tool-server endpoint (tool guardrails): the extension kind
 * `guardrail-check` with its built-ins; once plugins are loaded, guardrails.<id> are compiled
 * and checked.
 */
export const guardrailsCapability: Capability = {
  name: 'guardrails',
  setup(services) {
    const checks = services.provide(GUARDRAIL_CHECKS, services.kinds.add(createCheckRegistry()));
    for (const check of BUILTIN_CHECKS) checks.register(check);
  },
  prepare(services) {
    try {
      guardrailRegistry(services);
    } catch (err) {
      if (err instanceof GuardrailConfigError) throw new ConfigError(err.problems, 'guardrails');
      throw err;
    }
  },
};
