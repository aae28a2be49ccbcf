import { ExtensionRegistry } from '../../../kernel/engine/extension.js';
import { defineService } from '../../../kernel/engine/services.js';
export function defineAuthMode(mode) {
    return mode;
}
export const AUTH_MODES = defineService('auth-modes');
export function createAuthModeRegistry() {
    return new ExtensionRegistry('auth-mode');
}
//# sourceMappingURL=auth-mode.js.map