import { readFileSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { PipelineFile } from '../generated/pipeline.js';
import { describeErrors, validatorFor } from '../config/schema-validator.js';
import { PROVIDER_ROUTES, type RouteSpec } from '../http/route-table.js';
import { compose } from './compose.js';
import type { GatewayContext } from './context.js';
import type { GatewayServices } from './services.js';
import type { Middleware } from './stage.js';
import type { StageRegistry } from './stage-registry.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export class PipelineError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid pipelines:\n${problems.join('\n')}`);
    this.name = 'PipelineError';
  }
}

export interface CompiledPipeline {
  name: string;
  file: string;
  stages: string[];
  routes: RouteSpec[];
  run: (ctx: GatewayContext) => Promise<void>;
}

interface ParsedPipeline {
  file: string;
  spec: PipelineFile;
}

/** A pipeline file as problems name it: relative to the working directory when it is inside it. */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : file;
}

function readPipelineFiles(dir: string, problems: string[]): ParsedPipeline[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.(ya?ml|json)$/.test(n)).sort();
  } catch {
    problems.push(`pipelines.dir: the folder ${displayPath(dir)} cannot be read`);
    return [];
  }
  const validate = validatorFor('pipeline.schema.json');
  const out: ParsedPipeline[] = [];
  for (const name of names) {
    const file = displayPath(join(dir, name));
    let spec: unknown;
    try {
      const text = readFileSync(join(dir, name), 'utf8');
      spec = name.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    } catch (err) {
      problems.push(`${file}: cannot be parsed: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    if (!validate(spec)) {
      for (const line of describeErrors(validate.errors)) problems.push(`${file}: ${line}`);
      continue;
    }
    out.push({ file, spec: spec as PipelineFile });
  }
  return out;
}

/** `"retry"` or `{ retry: {...} }` -> [name, config]. */
function stageEntry(entry: PipelineFile['stages'][number]): [string, unknown] {
  if (typeof entry === 'string') return [entry, {}];
  const [name, config] = Object.entries(entry as Record<string, unknown>)[0]!;
  return [name, config ?? {}];
}

/**
 * Reads pipelines/*.yaml, checks every stage name against the registry and every stage config
 * against its schema, creates each stage once, and assigns each route its pipeline. Any
 * problem stops start-up with one line naming the file and key.
 */
export function compilePipelines(dir: string, registry: StageRegistry, services: GatewayServices, routes: RouteSpec[] = PROVIDER_ROUTES): Map<string, CompiledPipeline> {
  const problems: string[] = [];
  const parsed = readPipelineFiles(dir, problems);
  if (!parsed.length && !problems.length) problems.push(`pipelines.dir: ${displayPath(dir)} holds no pipeline files (*.yaml, *.yml, *.json)`);
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true }));
  const stageValidators = new Map<string, ValidateFunction>();
  const routeKeys = new Map(routes.map((r) => [r.key, r]));
  const byRoute = new Map<string, CompiledPipeline>();
  let fallback: CompiledPipeline | undefined;
  const names = new Set<string>();

  for (const { file, spec } of parsed) {
    if (names.has(spec.name)) problems.push(`${file}: name: another pipeline is already named ${spec.name}`);
    names.add(spec.name);
    const chain: Middleware[] = [];
    spec.stages.forEach((entry, i) => {
      const [name, config] = stageEntry(entry);
      const stage = registry.get(name);
      if (!stage) {
        problems.push(`${file}: stages[${i}]: unknown stage "${name}" (known: ${registry.names().join(', ')})`);
        return;
      }
      let validate = stageValidators.get(name);
      if (!validate) {
        try {
          validate = ajv.compile(stage.schema);
        } catch (err) {
          problems.push(`${file}: stages[${i}].${name}: the stage's own schema is invalid: ${(err as Error).message}`);
          return;
        }
        stageValidators.set(name, validate);
      }
      const cfg = structuredClone(config ?? {});
      if (!validate(cfg)) {
        for (const line of describeErrors(validate.errors, `stages[${i}].${name}`)) problems.push(`${file}: ${line}`);
        return;
      }
      try {
        chain.push(stage.create(cfg, services));
      } catch (err) {
        // A stage may report problems of the config sections it compiles (keyed lines of their own).
        if (err instanceof PipelineError) problems.push(...err.problems);
        else problems.push(`${file}: stages[${i}].${name}: ${(err as Error).message}`);
      }
    });
    const compiled: CompiledPipeline = {
      name: spec.name,
      file,
      stages: spec.stages.map((e) => stageEntry(e)[0]),
      routes: [],
      run: compose(chain),
    };
    for (const key of spec.routes) {
      if (key === '*') {
        if (fallback) problems.push(`${file}: routes: "*" is already claimed by ${fallback.file}`);
        fallback = compiled;
        continue;
      }
      const route = routeKeys.get(key);
      if (!route) {
        problems.push(`${file}: routes: no such route "${key}"`);
        continue;
      }
      const claimed = byRoute.get(key);
      if (claimed) problems.push(`${file}: routes: "${key}" is already served by ${claimed.file}`);
      byRoute.set(key, compiled);
      compiled.routes.push(route);
    }
  }
  if (fallback) {
    for (const route of routes) {
      if (!byRoute.has(route.key)) {
        byRoute.set(route.key, fallback);
        fallback.routes.push(route);
      }
    }
  }
  if (problems.length) throw new PipelineError([...new Set(problems)]);
  return byRoute;
}

export function pipelineFileName(file: string): string {
  return basename(file);
}
