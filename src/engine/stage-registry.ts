import type { StageDefinition } from './stage.js';

const NAME = /^[a-z][a-z0-9-]*$/;

/** The stages a pipeline may name. Unknown names are rejected when a pipeline is compiled. */
export class StageRegistry {
  private readonly stages = new Map<string, StageDefinition>();

  register(stage: StageDefinition, origin = 'built-in'): void {
    if (!stage || typeof stage !== 'object') throw new Error(`${origin}: a stage must be an object { name, schema, create }`);
    if (typeof stage.name !== 'string' || !NAME.test(stage.name)) {
      throw new Error(`${origin}: stage name must be lower-case words joined by '-' (got ${JSON.stringify(stage.name)})`);
    }
    if (typeof stage.create !== 'function') throw new Error(`${origin}: stage ${stage.name} has no create(config) factory`);
    if (!stage.schema || typeof stage.schema !== 'object') throw new Error(`${origin}: stage ${stage.name} has no config schema`);
    if (this.stages.has(stage.name)) throw new Error(`${origin}: a stage named ${stage.name} is already registered`);
    this.stages.set(stage.name, stage);
  }

  get(name: string): StageDefinition | undefined {
    return this.stages.get(name);
  }

  names(): string[] {
    return [...this.stages.keys()].sort();
  }
}
