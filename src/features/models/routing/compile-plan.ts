import type { RoutingTarget } from '../../../generated/routing.js';
import { compileQuery, QueryError, type PatternOrigin } from './conditions.js';
import { inheritSettings, settingsSecrets } from './inheritance.js';
import type { CompiledCondition, CompiledPlan, PlanNode, StrategyMode, TargetSettings } from './plan.js';
import { addressFields, callerValueProblem, headerSafe } from '../providers/shared/caller-values.js';
import { headerFieldNames, providerField } from '../providers/shared/provider-fields.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { forwardHeaderProblem } from './forwarded-headers.js';

/** The fields a routing target has of its own (schema/routing.schema.json); any other is a provider's setting. */
let targetKeys: ReadonlySet<string> | undefined;
function ownTargetKeys(): ReadonlySet<string> {
  const target = (schemaDocument('routing.schema.json') as { definitions: { target: { properties: Record<string, unknown> } } }).definitions.target;
  return (targetKeys ??= new Set(Object.keys(target.properties)));
}

/** Target fields that become header values upstream: the key, and the settings providers declare as headers. */
function headerFields(): string[] {
  return ['api_key', ...headerFieldNames()];
}

/** What compiling a config needs to know about the gateway it runs in. */
export interface PlanEnvironment {
  hasProvider(id: string): boolean;
  providerIds(): string[];
  /** Whether callers' configs may set custom_host (operator configs always may). */
  allowCustomHost: boolean;
  hasGuardrail(id: string): boolean;
  /** Header names (lower case) the operator sets in providers.<id>.headers: never forwarded. */
  operatorHeaders?: ReadonlySet<string>;
  /** The provider of a held credential (credentials.<name>, /v1/admin/credentials); undefined: no such credential. */
  credentialProvider?(name: string): string | undefined;
}

/** Who wrote a config: the caller (x-gateway-config JSON) or the operator (configs.<name> in the gateway config). */
export type PlanOrigin = PatternOrigin;

/** A config that cannot be compiled; one line per problem, each naming its key path. */
export class PlanError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'PlanError';
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function checkSettings(node: RoutingTarget, path: string, env: PlanEnvironment, origin: PlanOrigin, problems: string[]): void {
  if (node.provider !== undefined && !env.hasProvider(node.provider)) {
    problems.push(`${join(path, 'provider')}: unknown provider "${node.provider}" (known: ${env.providerIds().join(', ')})`);
  }
  for (const field of ['custom_host', 'base_url'] as const) {
    const host = node[field];
    if (host === undefined) continue;
    if (origin === 'caller' && !env.allowCustomHost) problems.push(`${join(path, field)}: is not allowed: this gateway does not set routing.allowCustomHost`);
    else if (!/^https?:\/\/[^\s/]+/i.test(host)) problems.push(`${join(path, field)}: must be an http(s) URL`);
  }
  if (node.credential !== undefined && node.api_key !== undefined) problems.push(`${join(path, 'credential')}: give api_key or credential, not both`);
  const fields = node as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (ownTargetKeys().has(key) || providerField(key)) continue;
    problems.push(`${join(path, key)}: is no routing-target field, and no provider declares it as a setting`);
  }
  for (const field of addressFields()) {
    const problem = callerValueProblem(field, fields[field]);
    if (problem) problems.push(`${join(path, field)}: ${problem}`);
  }
  for (const field of headerFields()) {
    const value = fields[field];
    if (typeof value === 'string' && !headerSafe(value)) problems.push(`${join(path, field)}: must not contain line breaks, NUL or characters a header cannot carry`);
  }
  node.forward_headers?.forEach((name, i) => {
    const problem = forwardHeaderProblem(name, env.operatorHeaders);
    if (problem) problems.push(`${join(path, 'forward_headers')}[${i}]: ${problem}`);
  });
  for (const key of ['input_guardrails', 'output_guardrails'] as const) {
    node[key]?.forEach((id, i) => {
      if (!env.hasGuardrail(id)) problems.push(`${join(path, key)}[${i}]: names no guardrail (guardrails.${id} is not defined)`);
    });
  }
}

/**
 * A target that uses a held credential: the credential exists, its provider is the target's (a
 * target without a provider takes the credential's), and in a caller's config no address the
 * caller chose (custom_host, base_url) is set where it applies.
 */
function checkCredential(node: RoutingTarget, settings: TargetSettings, path: string, env: PlanEnvironment, origin: PlanOrigin, problems: string[]): void {
  const name = settings.credential!;
  const provider = env.credentialProvider?.(name);
  if (provider === undefined) {
    if (node.credential !== undefined) problems.push(`${join(path, 'credential')}: names no credential the gateway holds ("${name}")`);
    return;
  }
  if (settings.provider === undefined) settings.provider = provider;
  else if (settings.provider !== provider && node.credential !== undefined) {
    problems.push(`${join(path, 'credential')}: credential "${name}" is for provider ${provider}, not ${settings.provider}`);
  }
  if (origin === 'caller' && settings.customHost !== undefined) {
    problems.push(`${join(path, 'credential')}: a credential the gateway holds never goes to an address the caller chose (custom_host or base_url)`);
  }
}

function childIndexByName(children: RoutingTarget[], name: string): number {
  return children.findIndex((c) => c.name === name);
}

function compileNode(
  node: RoutingTarget,
  parent: TargetSettings | undefined,
  index: string,
  path: string,
  env: PlanEnvironment,
  origin: PlanOrigin,
  problems: string[],
  flags: { conditional: boolean },
): PlanNode {
  checkSettings(node, path, env, origin, problems);
  const settings = inheritSettings(parent, node);
  if (settings.credential !== undefined) checkCredential(node, settings, path, env, origin, problems);
  const children = node.targets;
  const strategy = node.strategy;
  const mode: StrategyMode = strategy?.mode ?? (children && children.length > 1 ? 'fallback' : 'single');
  const secrets = settingsSecrets(settings);
  const out: PlanNode = {
    index,
    path,
    name: node.name,
    weight: node.weight ?? 1,
    settings,
    secrets,
    // An operator's key or cloud secret is held by the gateway; a caller's config holds the caller's own.
    heldSecrets: (origin === 'operator' && secrets.length > 0) || settings.credential !== undefined,
    callerHost: origin === 'caller' && settings.customHost !== undefined,
    mode,
    onStatusCodes: strategy?.on_status_codes ? new Set(strategy.on_status_codes) : undefined,
  };
  if (!children) {
    if (strategy && strategy.mode !== 'single') problems.push(`${join(path, 'strategy.mode')}: ${strategy.mode} needs targets to choose from`);
    return out;
  }
  out.children = children.map((child, i) =>
    compileNode(child, settings, index === '' ? String(i) : `${index}.${i}`, `${join(path, 'targets')}[${i}]`, env, origin, problems, flags),
  );
  const strategyPath = join(path, 'strategy');
  if (mode === 'loadbalance' && !children.some((c) => (c.weight ?? 1) > 0)) {
    problems.push(`${join(path, 'targets')}: loadbalance needs at least one target with a weight above 0`);
  }
  if (mode === 'conditional') {
    flags.conditional = true;
    const conditions: CompiledCondition[] = [];
    (strategy?.conditions ?? []).forEach((condition, i) => {
      const cpath = `${strategyPath}.conditions[${i}]`;
      const child = childIndexByName(children, condition.then);
      if (child < 0) problems.push(`${cpath}.then: names no target of this group ("${condition.then}")`);
      try {
        const test = compileQuery(condition.query, `${cpath}.query`, origin);
        if (child >= 0) conditions.push({ test, child });
      } catch (err) {
        if (err instanceof QueryError) problems.push(err.message);
        else throw err;
      }
    });
    out.conditions = conditions;
    if (strategy?.default !== undefined) {
      const child = childIndexByName(children, strategy.default);
      if (child < 0) problems.push(`${strategyPath}.default: names no target of this group ("${strategy.default}")`);
      else out.defaultChild = child;
    }
    if (!strategy?.conditions?.length && strategy?.default === undefined) {
      problems.push(`${strategyPath}: conditional mode needs conditions or a default`);
    }
  } else if (strategy?.conditions || strategy?.default !== undefined) {
    problems.push(`${strategyPath}: conditions and default apply only to mode conditional`);
  }
  return out;
}

/**
 * Compiles a routing config (already valid against schema/routing.schema.json) into a plan:
 * inheritance resolved, conditions compiled, providers, guardrails, custom hosts and forwarded
 * header names checked. `origin` says who wrote it: custom_host is the operator's right, and a
 * caller's only with routing.allowCustomHost; a caller's `$regex` patterns run on RE2, an
 * operator's on RegExp after the shape check. Throws PlanError listing every problem.
 */
export function compilePlan(config: RoutingTarget, env: PlanEnvironment, origin: PlanOrigin = 'caller'): CompiledPlan {
  const problems: string[] = [];
  const flags = { conditional: false };
  const root = compileNode(config, undefined, config.targets ? '' : '0', '', env, origin, problems, flags);
  if (problems.length) throw new PlanError(problems);
  const plan: CompiledPlan = { root, origin, requestTimeout: config.request_timeout, conditional: flags.conditional, firstProvider: firstProvider(root) };
  if (origin === 'caller') {
    const keys = configKeys(root, new Set<string>());
    if (keys.size) plan.callerKeys = [...keys];
  }
  return plan;
}

/**
 * The distinct `api_key`s of a config's targets (those the requests it routes send upstream: a
 * leaf's own or inherited key; a leaf with a held credential sends the gateway's, not a key
 * of the config), for `per: key` rate limits.
 */
function configKeys(node: PlanNode, out: Set<string>): Set<string> {
  if (node.children) for (const child of node.children) configKeys(child, out);
  else if (node.settings.apiKey && node.settings.credential === undefined) out.add(node.settings.apiKey);
  return out;
}

function firstProvider(node: PlanNode): string | undefined {
  if (!node.children) return node.settings.provider;
  for (const child of node.children) {
    const found = firstProvider(child);
    if (found) return found;
  }
  return node.settings.provider;
}
