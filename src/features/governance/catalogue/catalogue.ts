import type { ValidateFunction } from 'ajv';
import type { RoutingTarget } from '../../../generated/routing.js';
import type { CatalogueModel } from '../../../generated/governance/catalogue-model.js';
import { describeErrors, validatorFor } from '../../../kernel/config/schema-validator.js';
import { LruMap } from '../../../kernel/lru.js';
import { compilePlan, PlanError, type PlanEnvironment, type CompiledPlan, type PlanNode } from '../../models/index.js';
import type { GatewayKey } from '../governance-types.js';
import { keyMayUseModel } from '../model-access.js';
import type { CatalogueChoice } from '../governance-slots.js';

/** The fields of models.<name> that are the catalogue's own; the rest is a routing config. */
const OWN_FIELDS = ['price', 'context_window', 'max_output_tokens', 'description'] as const;
const GLOB_PLANS = 512;

/** A C0 control character or DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/** One entry of models.<name>: an exact public name, or a provider glob ("openai/*"). */
export interface CatalogueEntry {
  name: string;
  /** For "<prefix>/*" entries, the prefix with its slash: the rest of a matching name is the provider's model. */
  prefix?: string;
  routing: RoutingTarget;
  /** Exact entries: compiled once. */
  plan?: CompiledPlan;
  contextWindow?: number;
  maxOutputTokens?: number;
  description?: string;
  /** The provider and model its first target sends to (for prices and listing). */
  provider?: string;
  model?: string;
  /** Held credentials its targets name. */
  credentials: string[];
}

/**
 * What a catalogue entry sends with one held credential: the provider's model `model` (an exact
 * entry's target), or, for a provider glob ("openai/*"), any model, named `<prefix><model>`.
 */
export interface CredentialReach {
  entry: string;
  model?: string;
  prefix?: string;
}

/** The stand-in model a glob is compiled with at start-up (the rest of a requested name takes its place). */
const GLOB_STAND_IN = 'model';

/** A request's model resolved through the catalogue. */
export interface CatalogueRoute {
  entry: CatalogueEntry;
  plan: CompiledPlan;
  /** The provider's model name (a glob's rest, or the first target's model). */
  model?: string;
  /** What the request's CATALOGUE_MODEL slot holds (made once per exact entry, frozen). */
  choice: CatalogueChoice;
}

function firstLeaf(node: PlanNode): PlanNode {
  return node.children ? firstLeaf(node.children[0]!) : node;
}

/** Each leaf of `node` that uses a held credential, with the model it sends. */
function credentialLeaves(node: PlanNode, out: Array<{ credential: string; model: unknown }>): Array<{ credential: string; model: unknown }> {
  if (node.children) for (const child of node.children) credentialLeaves(child, out);
  else if (node.settings.credential !== undefined) out.push({ credential: node.settings.credential, model: node.settings.overrideParams?.model });
  return out;
}

function credentialsOf(node: PlanNode, out: Set<string>): Set<string> {
  if (node.settings.credential !== undefined) out.add(node.settings.credential);
  for (const child of node.children ?? []) credentialsOf(child, out);
  return out;
}

/**
 * The model catalogue (contract section 8): models.<public name> -> a routing config of the
 * operator's (targets with provider, model, credential, base_url; strategies and retries),
 * compiled once at start-up with the key path models.<name>; price, context_window and
 * max_output_tokens set apart. A name ending in "/*" routes every model of a provider: the part
 * after the slash is the model (compiled once per model name, kept in an LRU). A request's name
 * resolves to the exact entry, else the glob with the longest prefix.
 */
export class Catalogue {
  private readonly exact = new Map<string, CatalogueEntry>();
  /** The route of each exact entry, made once: a request routed by an exact name allocates none. */
  private readonly exactRoutes = new Map<string, CatalogueRoute>();
  /** Glob entries, longest prefix first. */
  private readonly globs: CatalogueEntry[] = [];
  private readonly globPlans = new LruMap<string, CompiledPlan>(GLOB_PLANS);
  /** Credential name -> what the entries send with it. */
  private readonly reach = new Map<string, CredentialReach[]>();

  /** Throws PlanError with `models.<name>...: ...` lines when an entry is unusable. */
  constructor(
    models: Record<string, CatalogueModel>,
    private readonly env: PlanEnvironment,
  ) {
    const validate: ValidateFunction = validatorFor('routing.schema.json');
    const problems: string[] = [];
    for (const [name, raw] of Object.entries(models)) {
      const routing: Record<string, unknown> = { ...raw };
      for (const field of OWN_FIELDS) delete routing[field];
      if (!validate(routing)) {
        for (const line of describeErrors(validate.errors)) problems.push(`models.${name}.${line.replace(/^\(root\): /, '')}`);
        continue;
      }
      const entry: CatalogueEntry = { name, routing: routing as RoutingTarget, credentials: [] };
      if (raw.context_window !== undefined) entry.contextWindow = raw.context_window;
      if (raw.max_output_tokens !== undefined) entry.maxOutputTokens = raw.max_output_tokens;
      if (raw.description !== undefined) entry.description = raw.description;
      if (name.endsWith('/*') && name.length > 2) entry.prefix = name.slice(0, -1);
      try {
        // A glob is compiled once here with a stand-in model, to find its problems at start-up.
        const plan = compilePlan(entry.prefix ? this.withModel(entry.routing, GLOB_STAND_IN) : entry.routing, env, 'operator');
        if (!entry.prefix) entry.plan = plan;
        const leaf = firstLeaf(plan.root);
        entry.provider = leaf.settings.provider;
        const model = leaf.settings.overrideParams?.model;
        if (!entry.prefix) entry.model = typeof model === 'string' ? model : name;
        entry.credentials = [...credentialsOf(plan.root, new Set())];
        for (const used of credentialLeaves(plan.root, [])) {
          const reach: CredentialReach =
            entry.prefix && used.model === GLOB_STAND_IN ? { entry: name, prefix: entry.prefix } : { entry: name, model: typeof used.model === 'string' ? used.model : name };
          this.reach.set(used.credential, [...(this.reach.get(used.credential) ?? []), reach]);
        }
      } catch (err) {
        if (!(err instanceof PlanError)) throw err;
        for (const line of err.problems) problems.push(`models.${name}.${line}`);
        continue;
      }
      if (entry.prefix) this.globs.push(entry);
      else this.exact.set(name, entry);
    }
    if (problems.length) throw new PlanError(problems);
    this.globs.sort((a, b) => b.prefix!.length - a.prefix!.length);
    for (const [name, entry] of this.exact)
      this.exactRoutes.set(name, Object.freeze({ entry, plan: entry.plan!, model: entry.model, choice: Object.freeze({ name, entry: name, credentials: entry.credentials }) }));
  }

  get size(): number {
    return this.exact.size + this.globs.length;
  }

  entries(): CatalogueEntry[] {
    return [...this.exact.values(), ...this.globs];
  }

  /** Credential name -> the entries whose targets name it. */
  credentialUsage(): Map<string, string[]> {
    const usage = new Map<string, string[]>();
    for (const entry of this.entries()) for (const c of entry.credentials) usage.set(c, [...(usage.get(c) ?? []), entry.name]);
    return usage;
  }

  /**
   * Whether a key (and its team) could have `model` sent upstream with held credential
   * `credential` by naming a catalogue model it may use: an exact entry whose target sends that
   * model with it, or a provider glob routed through it whose name for the model it may use.
   */
  reachesWithCredential(credential: string, model: string, key: GatewayKey | undefined, teamModels?: readonly string[]): boolean {
    if (CONTROL.test(model)) return false;
    for (const reach of this.reach.get(credential) ?? []) {
      const name = reach.prefix !== undefined ? reach.prefix + model : reach.model === model ? reach.entry : undefined;
      if (name !== undefined && keyMayUseModel(key?.models, name) && keyMayUseModel(teamModels, name)) return true;
    }
    return false;
  }

  /**
   * The route of public name `name` for a key: undefined when the catalogue has no such model or
   * the key may not use it (the caller is told the same for both).
   */
  route(name: string, key: GatewayKey | undefined, teamModels?: readonly string[]): CatalogueRoute | undefined {
    // No model's name holds a control character: such a name is no model, nor the rest of a glob's (sent upstream as a model).
    if (CONTROL.test(name)) return undefined;
    if (!keyMayUseModel(key?.models, name) || !keyMayUseModel(teamModels, name)) return undefined;
    const exact = this.exactRoutes.get(name);
    if (exact) return exact;
    for (const glob of this.globs) {
      if (!name.startsWith(glob.prefix!) || name.length === glob.prefix!.length) continue;
      const model = name.slice(glob.prefix!.length);
      let plan = this.globPlans.get(name);
      if (!plan) this.globPlans.set(name, (plan = compilePlan(this.withModel(glob.routing, model), this.env, 'operator')));
      return { entry: glob, plan, model, choice: { name, entry: glob.name, credentials: glob.credentials } };
    }
    return undefined;
  }

  /** The routing config with the provider's model set at its root (a target's own model still wins). */
  private withModel(routing: RoutingTarget, model: string): RoutingTarget {
    return { ...routing, override_params: { ...routing.override_params, model } };
  }
}
