import type { ResolvedTarget } from '../providers/provider.js';
import type { ConditionInput, Predicate } from './conditions.js';

/**
 * Settings a target passes to its children (after the contract's inheritance rules): a
 * ResolvedTarget still being built, whose provider may come from a parent and whose address is
 * the config's custom_host.
 */
export type TargetSettings = Omit<ResolvedTarget, 'provider' | 'baseUrl' | 'index' | 'credential'> & {
  provider?: string;
  customHost?: string;
  /** The held credential the target uses (credential: <name>). */
  credential?: string;
};

export type StrategyMode = 'single' | 'fallback' | 'loadbalance' | 'conditional';

export interface CompiledCondition {
  test: Predicate;
  /** Index into the node's children. */
  child: number;
}

/** One node of a compiled routing config: a leaf target, or a group tried by its strategy. */
export interface PlanNode {
  /** Index path ("0", "1.2"); the root of a config without targets is "0". */
  index: string;
  /** Where the node sits in the config, for messages ("targets[1].targets[0]"). */
  path: string;
  name?: string;
  weight: number;
  settings: TargetSettings;
  /** Secret values of this node (keys, cloud credentials), scrubbed from answers and logs. */
  secrets: string[];
  /** The node's key or cloud secrets are the operator's (configs.<name>, models.<name>, or a held credential): used only for requests with a gateway credential. */
  heldSecrets: boolean;
  /** The node's address is a caller's custom_host: no key the gateway holds goes there. */
  callerHost: boolean;
  children?: PlanNode[];
  mode: StrategyMode;
  /** Statuses that move on to the next target; undefined: the mode's default. */
  onStatusCodes?: ReadonlySet<number>;
  conditions?: CompiledCondition[];
  /** Index into children used by conditional mode when no condition matches. */
  defaultChild?: number;
}

export interface CompiledPlan {
  root: PlanNode;
  /** Who wrote the config: the caller (x-gateway-config JSON) or the operator (configs.<name>). */
  origin: 'caller' | 'operator';
  /** The name of a config under configs.<name> (undefined for a caller's JSON config). */
  name?: string;
  /** The whole request's deadline (ms), from the root's request_timeout. */
  requestTimeout?: number;
  /** Whether any node routes on conditions (x-gateway-metadata and the body are then read). */
  conditional: boolean;
  /**
   * The provider the request's own key belongs to when the request names none in
   * x-gateway-provider: that of the config's first target (depth first).
   */
  firstProvider?: string;
  /**
   * A caller's config only: the distinct provider keys (`api_key`) its targets carry, each one a
   * key the request may send upstream. `per: key` rate limits count every one of them, as they
   * count a key sent in x-gateway-api-key (undefined: none).
   */
  callerKeys?: readonly string[];
}

/**
 * What the route stage decided for a request, for the fallback stage to run: the routing
 * config's plan (with the condition input read once, for conditional plans), or the one target
 * the request headers name.
 */
export type RoutingDecision =
  | {
      plan: CompiledPlan;
      conditionInput?: ConditionInput;
      /** The catalogue model the request was routed by (a gateway key that named only a model). */
      byModel?: string;
      single?: undefined;
    }
  | { single: ResolvedTarget; plan?: undefined; byModel?: undefined };

/** A catalogue model and one of its targets, by index path: where a request that names no model is routed (ROUTED_AS). */
export interface RoutedAs {
  model: string;
  index: string;
}

/**
 * The plan narrowed to its leaf target of index path `index` ("0", "1.2"): that target alone,
 * with the settings it inherited (undefined: the plan has no such target, its config changed).
 */
export function planAt(plan: CompiledPlan, index: string): CompiledPlan | undefined {
  const find = (node: PlanNode): PlanNode | undefined => {
    if (!node.children?.length) return node.index === index ? node : undefined;
    for (const child of node.children) {
      const found = find(child);
      if (found) return found;
    }
    return undefined;
  };
  const leaf = find(plan.root);
  if (!leaf) return undefined;
  return { ...plan, root: leaf, conditional: false, ...(leaf.settings.provider ? { firstProvider: leaf.settings.provider } : {}) };
}
