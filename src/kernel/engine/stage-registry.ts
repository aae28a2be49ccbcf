import { ExtensionRegistry } from './extension.js';
import type { AnyStageDefinition } from './stage.js';

/** The stages a pipeline may name (kind `stage`). Unknown names are refused when a pipeline is compiled. */
export class StageRegistry extends ExtensionRegistry<AnyStageDefinition> {
  constructor() {
    super(
      'stage',
      (stage) => {
        for (const key of ['requires', 'provides'] as const) {
          const v = stage[key];
          if (v !== undefined && typeof v !== 'function' && !Array.isArray(v)) return `has a ${key} that is not a list of slots`;
        }
        return undefined;
      },
      undefined,
      'stages',
    );
  }
}
