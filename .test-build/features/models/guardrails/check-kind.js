import { ExtensionRegistry } from '../../../kernel/engine/extension.js';
import { defineService } from '../../../kernel/engine/services.js';
export function defineCheck(check) {
    return check;
}
/** The check kinds of this gateway, built-in and from plugins. */
export const GUARDRAIL_CHECKS = defineService('guardrail-checks');
/** Check names are the config's `type` values (camelCase, as the contract spells them). */
export function createCheckRegistry() {
    return new ExtensionRegistry('guardrail-check', undefined, /^[A-Za-z][A-Za-z0-9-]*$/);
}
//# sourceMappingURL=check-kind.js.map