import type { AnyStageDefinition } from '../../../kernel/engine/stage.js';
import forwardIdentity from './forward-identity.js';

/** The stages of the auth feature besides authentication itself: forwarding the caller's identity upstream. Built-in stages (src/stages/builtin-stages.ts lists them). */
export const AUTH_STAGES: AnyStageDefinition[] = [forwardIdentity];
