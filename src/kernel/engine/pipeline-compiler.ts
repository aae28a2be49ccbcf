import { compose, type ChainStep } from './compose.js';
import type { GatewayContext, RouteDef } from './context.js';
import { ExtensionConfigError } from './extension.js';
import { displayPath, readPipelineFiles, resolvePipelines, sameFolder, type ResolvedPipeline, type StageEntry } from './pipeline-files.js';
import { QueryError } from './query.js';
import { ensureJsonBody } from './request-body.js';
import { compareSpecificity, parsePattern, patternMatches, type RoutePattern } from './route-patterns.js';
import type { GatewayServices } from './services.js';
import type { Slot } from './slot.js';
import { openStage, slotsOf, type Middleware, type StageDefinition, type StageInstance } from './stage.js';
import type { StageRegistry } from './stage-registry.js';
import { compileWhen } from './when.js';

export class PipelineError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid pipelines:\n${problems.join('\n')}`);
    this.name = 'PipelineError';
  }
}

export interface CompiledPipeline {
  name: string;
  file: string;
  description: string;
  /** Stage names in order. */
  stages: string[];
  /** The route table entries this pipeline serves. */
  routes: RouteDef[];
  run: (ctx: GatewayContext) => Promise<void>;
  /** Adds the headers its stages put on every answer (errors included). */
  decorate?: (ctx: GatewayContext, headers: Record<string, string>) => void;
  /** The fields its stages add to error.debug. */
  debug?: (ctx: GatewayContext) => Record<string, unknown>;
}

export interface CompileOptions {
  /** The repository's pipelines/ folder: always loaded. */
  shippedDir: string;
  /** pipelines.dir: the user's files, loaded after (a file with a shipped name replaces it). */
  userDir?: string;
  /** The route table: every route the gateway serves, the catch-all last. */
  routes: RouteDef[];
  stages: StageRegistry;
  services: GatewayServices;
  bodyLimit?: number;
}

interface Checked {
  pipeline: ResolvedPipeline;
  defs: StageDefinition<unknown, GatewayContext>[];
  configs: unknown[];
  whens: Array<ReturnType<typeof compileWhen> | undefined>;
}

function where(entry: StageEntry): string {
  return `${entry.file}: ${entry.at}`;
}

/** Checks each stage of a pipeline: known, config valid against its schema, `when:` compiled. */
function checkStages(pipeline: ResolvedPipeline, registry: StageRegistry, problems: string[]): Checked | undefined {
  const before = problems.length;
  const defs: StageDefinition<unknown, GatewayContext>[] = [];
  const configs: unknown[] = [];
  const whens: Checked['whens'] = [];
  for (const entry of pipeline.stages) {
    const def = registry.get(entry.name);
    if (!def) {
      problems.push(`${where(entry)}: unknown stage "${entry.name}" (known: ${registry.names().join(', ')})`);
      continue;
    }
    const configPath = entry.configuredAt ? entry.configuredAt.at : `${entry.at}.${entry.name}`;
    try {
      configs.push(registry.validate(entry.name, entry.config, configPath));
    } catch (err) {
      if (!(err instanceof ExtensionConfigError)) throw err;
      const file = entry.configuredAt?.file ?? entry.file;
      for (const line of err.problems) problems.push(`${file}: ${line}`);
      continue;
    }
    defs.push(openStage(def));
    if (entry.when === undefined) whens.push(undefined);
    else {
      try {
        whens.push(compileWhen(entry.when, `${entry.at}.when`));
      } catch (err) {
        if (!(err instanceof QueryError)) throw err;
        problems.push(`${entry.file}: ${err.message}`);
      }
    }
  }
  return problems.length > before ? undefined : { pipeline, defs, configs, whens };
}

function list(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/**
 * Checks the order of a pipeline against what its stages require and provide: every slot a
 * stage requires must be provided by a stage before it (one without `when:`, which might not
 * run), and a stage that must run once per request may not follow one that repeats the rest of
 * the chain (fallback, retry: the stages after them run once per attempt).
 */
function checkOrder(checked: Checked, registry: StageRegistry, problems: string[]): void {
  const { pipeline, defs, configs, whens } = checked;
  const file = pipeline.file;
  const provided = new Set<Slot<unknown>>();
  let repeatedBy: string | undefined;
  let writers: Set<Slot<unknown>> | undefined;
  const providersIn = (slot: Slot<unknown>, from: number) => defs.flatMap((d, i) => (i >= from && slotsOf(d.provides, configs[i]).includes(slot) ? [d.name] : []));
  defs.forEach((def, i) => {
    if (def.once && repeatedBy) {
      problems.push(
        `${file}: stage ${def.name} must run once per request, but ${repeatedBy} before it runs the rest of the pipeline once per attempt; put ${def.name} before ${repeatedBy}`,
      );
    }
    for (const slot of slotsOf(def.requires, configs[i])) {
      if (provided.has(slot) || slot.edge) continue;
      const later = [...new Set(providersIn(slot, i + 1))];
      const conditional = defs.flatMap((d, j) => (j < i && whens[j] && slotsOf(d.provides, configs[j]).includes(slot) ? [d.name] : []));
      if (conditional.length) {
        problems.push(`${file}: stage ${def.name} needs ${slot.label}, which ${conditional[0]} provides only when its when: matches; ${def.name} may run without it`);
      } else if (later.length) {
        problems.push(`${file}: stage ${def.name} needs ${slot.label}, which ${list(later)} provides; ${later[0]} is not before it`);
      } else {
        const anywhere = registry.all().flatMap((d) => (slotsOf(openStage(d).provides, {}).includes(slot) ? [d.name] : []));
        problems.push(
          anywhere.length
            ? `${file}: stage ${def.name} needs ${slot.label}, which ${list(anywhere)} provides; the pipeline has no ${list(anywhere)} before it`
            : `${file}: stage ${def.name} needs ${slot.label}, which no stage provides`,
        );
      }
    }
    for (const slot of slotsOf(def.reads, configs[i])) {
      if (slot.edge) continue;
      writers ??= writtenSlots(registry);
      if (!writers.has(slot)) problems.push(`${file}: stage ${def.name} reads ${slot.label}, which no stage provides or writes`);
    }
    if (!whens[i]) for (const slot of slotsOf(def.provides, configs[i])) provided.add(slot);
    if (def.repeats) repeatedBy ??= def.name;
  });
}

/** The slots some stage of the registry provides or writes (with its default config). */
function writtenSlots(registry: StageRegistry): Set<Slot<unknown>> {
  const out = new Set<Slot<unknown>>();
  for (const d of registry.all()) for (const slot of [...slotsOf(openStage(d).provides, {}), ...slotsOf(openStage(d).writes, {})]) out.add(slot);
  return out;
}

/**
 * Checks that a pipeline that serves routes answers every request: it holds a terminal stage
 * (one that answers whatever reaches it) that runs on every request (no `when:`), and no stage
 * after it (which would never run).
 */
function checkAnswers(checked: Checked, served: RouteDef[], problems: string[]): void {
  const { pipeline, defs, whens } = checked;
  const at = defs.findIndex((d, i) => d.terminal && !whens[i]);
  if (at < 0) {
    const routes = served.map((r) => (r.key === '*' ? 'unknown routes' : r.key));
    const shown = routes.length > 3 ? `${routes.slice(0, 3).join(', ')} and ${routes.length - 3} more` : routes.join(', ');
    const conditional = defs.find((d, i) => d.terminal && whens[i]);
    problems.push(
      conditional
        ? `${pipeline.file}: pipeline ${pipeline.name} answers only when the when: of ${conditional.name} matches; the other requests to ${shown} would end without an answer (remove the when: or add a stage that answers, such as forward)`
        : `${pipeline.file}: pipeline ${pipeline.name} has no stage that answers (such as forward); requests to ${shown} would end without an answer`,
    );
    return;
  }
  const after = defs.slice(at + 1).map((d) => d.name);
  if (after.length) {
    const named =
      after.length === 1 ? `stage ${after[0]} after ${defs[at]!.name} never runs` : `stages ${after.slice(0, -1).join(', ')} and ${after.at(-1)} after ${defs[at]!.name} never run`;
    problems.push(`${pipeline.file}: ${named}: ${defs[at]!.name} answers every request that reaches it`);
  }
}

/** Assigns each route table entry the pipeline with the most specific pattern that claims it. */
function assignRoutes(pipelines: ResolvedPipeline[], routes: RouteDef[], problems: string[]): Map<string, ResolvedPipeline> {
  const claims: Array<{ pipeline: ResolvedPipeline; pattern: RoutePattern; index: number }> = [];
  for (const pipeline of pipelines) {
    pipeline.routes.forEach((text, index) => {
      const pattern = parsePattern(text);
      if (typeof pattern === 'string') {
        problems.push(`${pipeline.routesFile}: routes[${index}]: "${text}" ${pattern}`);
        return;
      }
      if (!routes.some((r) => patternMatches(pattern, r))) {
        problems.push(`${pipeline.routesFile}: routes: no such route "${text}"`);
        return;
      }
      claims.push({ pipeline, pattern, index });
    });
  }
  const byRoute = new Map<string, ResolvedPipeline>();
  const ties = new Set<string>();
  for (const route of routes) {
    let best: (typeof claims)[number] | undefined;
    let tied: (typeof claims)[number] | undefined;
    for (const claim of claims) {
      if (!patternMatches(claim.pattern, route)) continue;
      if (!best) {
        best = claim;
        continue;
      }
      const order = compareSpecificity(claim.pattern, best.pattern);
      if (order > 0) {
        best = claim;
        tied = undefined;
      } else if (order === 0 && claim.pipeline !== best.pipeline) tied = claim;
    }
    if (!best) continue;
    if (tied) {
      // The line names the user's file (or the later one) first: that is where the tie was made.
      const rank = (c: (typeof claims)[number]) => `${c.pipeline.origin === 'user' ? 1 : 0}${c.pipeline.routesFile}`;
      const [a, b] = [best, tied].sort((x, y) => (rank(x) < rank(y) ? -1 : 1));
      const line = `${b!.pipeline.routesFile}: routes: "${b!.pattern.text}" and "${a!.pattern.text}" of ${a!.pipeline.routesFile} (pipeline ${a!.pipeline.name}) both claim ${route.key === '*' ? 'unknown routes' : route.key} and neither is more specific`;
      if (!ties.has(line)) problems.push(line);
      ties.add(line);
      continue;
    }
    byRoute.set(route.key, best.pipeline);
  }
  return byRoute;
}

/**
 * Runs the stage's middleware only for requests its `when:` matches (the JSON body read first
 * when the query needs it); `seesRejected`: also on requests whose rejection was deferred.
 */
function step(run: Middleware, when: ReturnType<typeof compileWhen> | undefined, bodyLimit: number, seesRejected: boolean | undefined): ChainStep {
  const out: ChainStep = seesRejected ? { run, seesRejected } : { run };
  if (!when) return out;
  if (!when.usesBody) return { ...out, when: when.test };
  const test = when.test;
  return {
    ...out,
    run: async (ctx, next) => {
      await ensureJsonBody(ctx, bodyLimit);
      return test(ctx) ? run(ctx, next) : next();
    },
  };
}

function build(checked: Checked, routes: RouteDef[], services: GatewayServices, bodyLimit: number, problems: string[]): CompiledPipeline {
  const { pipeline, defs, configs, whens } = checked;
  const steps: ChainStep[] = [];
  const decorators: NonNullable<StageInstance['decorate']>[] = [];
  const debuggers: NonNullable<StageInstance['debug']>[] = [];
  defs.forEach((def, i) => {
    const entry = pipeline.stages[i]!;
    let made: ReturnType<StageDefinition['create']>;
    try {
      made = def.create(configs[i], services);
    } catch (err) {
      // A stage may report problems of the config sections it compiles (keyed lines of their
      // own: PipelineError), or of its own config (ExtensionConfigError, keys below the stage).
      if (err instanceof PipelineError) problems.push(...err.problems);
      else if (err instanceof ExtensionConfigError) for (const line of err.problems) problems.push(`${where(entry)}.${entry.name}.${line}`);
      else problems.push(`${where(entry)}.${entry.name}: ${(err as Error).message}`);
      return;
    }
    if (!made) return;
    if (typeof made === 'function') {
      steps.push(step(made, whens[i], bodyLimit, def.seesRejected));
      return;
    }
    steps.push(step(made.run, whens[i], bodyLimit, def.seesRejected));
    if (made.decorate) decorators.push(made.decorate);
    if (made.debug) debuggers.push(made.debug);
  });
  const compiled: CompiledPipeline = {
    name: pipeline.name,
    file: pipeline.file,
    description: pipeline.description,
    stages: defs.map((d) => d.name),
    routes,
    run: compose(steps),
  };
  if (decorators.length) {
    compiled.decorate = (ctx, headers) => {
      for (const d of decorators) d(ctx, headers);
    };
  }
  if (debuggers.length) {
    compiled.debug = (ctx) => {
      const out: Record<string, unknown> = {};
      for (const d of debuggers) Object.assign(out, d(ctx));
      return out;
    };
  }
  return compiled;
}

/**
 * Reads the shipped pipelines and the user's (pipelines.dir), resolves `extends`, checks every
 * stage name against the registry, every stage config against its schema, every `when:` query
 * and the order of every pipeline against what its stages require and provide, assigns each
 * route the pipeline of its most specific pattern, checks that each pipeline serving a route
 * answers (holds a terminal stage that runs on every request), then creates each stage once and composes
 * each pipeline. Any problem stops start-up with one line naming the file, the stage and the
 * reason. Returns the pipeline of each route, by route key.
 */
export function compilePipelines(options: CompileOptions): Map<string, CompiledPipeline> {
  const { shippedDir, userDir, routes, stages: registry, services } = options;
  const bodyLimit = options.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
  const problems: string[] = [];
  const shipped = readPipelineFiles(shippedDir, 'shipped', problems);
  const user = userDir && !sameFolder(userDir, shippedDir) ? readPipelineFiles(userDir, 'user', problems) : [];
  if (!shipped.length && !user.length && !problems.length) problems.push(`pipelines.dir: ${displayPath(userDir ?? shippedDir)} holds no pipeline files (*.yaml, *.yml, *.json)`);
  const resolved = resolvePipelines(shipped, user, problems);

  const checked = new Map<ResolvedPipeline, Checked>();
  for (const pipeline of resolved) {
    const c = checkStages(pipeline, registry, problems);
    if (!c) continue;
    checkOrder(c, registry, problems);
    checked.set(pipeline, c);
  }
  const byRoute = assignRoutes(resolved, routes, problems);

  const servedRoutes = new Map<ResolvedPipeline, RouteDef[]>();
  for (const route of routes) {
    const p = byRoute.get(route.key);
    if (!p) continue;
    let list = servedRoutes.get(p);
    if (!list) servedRoutes.set(p, (list = []));
    list.push(route);
  }
  for (const [pipeline, served] of servedRoutes) {
    const c = checked.get(pipeline);
    if (c) checkAnswers(c, served, problems);
  }
  if (problems.length) throw new PipelineError([...new Set(problems)]);
  const compiled = new Map<string, CompiledPipeline>();
  for (const [pipeline, served] of servedRoutes) {
    const c = build(checked.get(pipeline)!, served, services, bodyLimit, problems);
    for (const route of served) compiled.set(route.key, c);
  }
  if (problems.length) throw new PipelineError([...new Set(problems)]);
  return compiled;
}
