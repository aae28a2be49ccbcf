import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { PipelineFile } from '../../generated/pipeline.js';
import { describeErrors, validatorFor } from '../config/schema-validator.js';

/** A pipeline file as read: where it came from and what it says. */
export interface ParsedPipeline {
  /** As problems name it (relative to the working directory when inside it). */
  file: string;
  origin: 'shipped' | 'user';
  spec: PipelineFile;
}

/** One stage of a resolved pipeline, with the file and key path it was written at. */
export interface StageEntry {
  name: string;
  config: Record<string, unknown>;
  when?: unknown;
  /** The file that wrote this stage (a base pipeline's file for inherited stages). */
  file: string;
  /** Its key path in that file, e.g. stages[3] or insert[0].stages[1]. */
  at: string;
  /** The key path of its config, when `configure` of another file changed it. */
  configuredAt?: { file: string; at: string };
}

/** A pipeline with `extends` resolved: the whole stage list, routes and description. */
export interface ResolvedPipeline {
  name: string;
  file: string;
  origin: ParsedPipeline['origin'];
  description: string;
  routes: string[];
  /** The file that wrote `routes` (a base's, when inherited). */
  routesFile: string;
  stages: StageEntry[];
}

/** A pipeline file as problems name it: relative to the working directory when it is inside it. */
export function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : file;
}

/** Reads the pipeline files (*.yaml, *.yml, *.json) of a folder, each checked against schema/pipeline.schema.json. */
export function readPipelineFiles(dir: string, origin: ParsedPipeline['origin'], problems: string[]): ParsedPipeline[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => /\.(ya?ml|json)$/.test(n))
      .sort();
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
    const p = spec as PipelineFile;
    const edits = p.insert !== undefined || p.remove !== undefined || p.configure !== undefined;
    if (p.stages && p.extends) problems.push(`${file}: stages: give either stages or extends, not both`);
    else if (!p.stages && !p.extends) problems.push(`${file}: stages: is required (or extends: <pipeline>)`);
    else if (p.stages && edits) problems.push(`${file}: ${p.insert ? 'insert' : p.remove ? 'remove' : 'configure'}: edits apply to extends, not to a full stages list`);
    else if (!p.extends && !p.routes) problems.push(`${file}: routes: is required`);
    else out.push({ file, origin, spec: p });
  }
  return out;
}

export function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

type RawEntry = NonNullable<PipelineFile['stages']>[number];

/** `"retry"` or `{ retry: {...}, when: {...} }` -> its parts. */
function entryOf(raw: RawEntry, file: string, at: string): StageEntry {
  if (typeof raw === 'string') return { name: raw, config: {}, file, at };
  const obj = raw as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => k !== 'when');
  const name = keys[0] ?? 'when';
  const config = (obj[name] ?? {}) as Record<string, unknown>;
  return { name, config, file, at, ...('when' in obj ? { when: obj.when } : {}) };
}

/**
 * Resolves every pipeline: shipped ones, replaced by user files of the same name, each
 * `extends` applied (remove, then insert, then configure). Problems are pushed as lines naming
 * the file and key.
 */
export function resolvePipelines(shipped: ParsedPipeline[], user: ParsedPipeline[], problems: string[]): ResolvedPipeline[] {
  const byName = new Map<string, ParsedPipeline>();
  /** Shipped pipelines a user file replaced: what a file extending its own name starts from. */
  const replaced = new Map<string, ParsedPipeline>();
  for (const group of [shipped, user]) {
    const seen = new Map<string, string>();
    for (const p of group) {
      const name = p.spec.name;
      const other = seen.get(name);
      if (other) {
        problems.push(`${p.file}: name: another pipeline is already named ${name} (${other})`);
        continue;
      }
      seen.set(name, p.file);
      const before = byName.get(name);
      if (before) replaced.set(name, before);
      byName.set(name, p);
    }
  }

  const resolved = new Map<ParsedPipeline, ResolvedPipeline | null>();
  const resolving = new Set<ParsedPipeline>();

  const resolve = (p: ParsedPipeline): ResolvedPipeline | null => {
    if (resolved.has(p)) return resolved.get(p)!;
    const spec = p.spec;
    if (!spec.extends) {
      const out: ResolvedPipeline = {
        name: spec.name,
        file: p.file,
        origin: p.origin,
        description: spec.description ?? '',
        routes: spec.routes ?? [],
        routesFile: p.file,
        stages: spec.stages!.map((raw, i) => entryOf(raw, p.file, `stages[${i}]`)),
      };
      resolved.set(p, out);
      return out;
    }
    if (resolving.has(p)) {
      problems.push(`${p.file}: extends: ${spec.extends} extends this pipeline again (a loop)`);
      resolved.set(p, null);
      return null;
    }
    const baseFile = spec.extends === spec.name && p.origin === 'user' ? replaced.get(spec.name) : byName.get(spec.extends);
    if (!baseFile || baseFile === p) {
      problems.push(
        `${p.file}: extends: no pipeline named ${spec.extends}${spec.extends === spec.name ? ' to extend (a pipeline extends itself only to replace a shipped one)' : ''}`,
      );
      resolved.set(p, null);
      return null;
    }
    resolving.add(p);
    const base = resolve(baseFile);
    resolving.delete(p);
    if (!base) {
      resolved.set(p, null);
      return null;
    }
    const out = applyEdits(p, base, problems);
    resolved.set(p, out);
    return out;
  };

  const out: ResolvedPipeline[] = [];
  for (const p of byName.values()) {
    const r = resolve(p);
    if (r) out.push(r);
  }
  return out;
}

function applyEdits(p: ParsedPipeline, base: ResolvedPipeline, problems: string[]): ResolvedPipeline | null {
  const spec = p.spec;
  const file = p.file;
  let stages = base.stages.map((e) => ({ ...e }));
  const before = problems.length;
  const positions = (name: string) => stages.flatMap((e, i) => (e.name === name ? [i] : []));

  spec.remove?.forEach((name, i) => {
    if (!positions(name).length) problems.push(`${file}: remove[${i}]: ${base.name} has no stage ${name}`);
    stages = stages.filter((e) => e.name !== name);
  });
  spec.insert?.forEach((insertion, i) => {
    const at = `insert[${i}]`;
    const anchor = insertion.before ?? insertion.after;
    if ((insertion.before === undefined) === (insertion.after === undefined)) {
      problems.push(`${file}: ${at}: give either before or after (one stage name)`);
      return;
    }
    const found = positions(anchor!);
    if (!found.length) {
      problems.push(`${file}: ${at}.${insertion.before !== undefined ? 'before' : 'after'}: the pipeline has no stage ${anchor}`);
      return;
    }
    if (found.length > 1) {
      problems.push(`${file}: ${at}.${insertion.before !== undefined ? 'before' : 'after'}: the pipeline has ${found.length} stages named ${anchor}; name one that appears once`);
      return;
    }
    const entries = insertion.stages.map((raw, j) => entryOf(raw, file, `${at}.stages[${j}]`));
    const index = insertion.before !== undefined ? found[0]! : found[0]! + 1;
    stages.splice(index, 0, ...entries);
  });
  for (const [name, config] of Object.entries(spec.configure ?? {})) {
    const found = positions(name);
    if (!found.length) {
      problems.push(`${file}: configure.${name}: the pipeline has no stage ${name}`);
      continue;
    }
    for (const i of found) {
      const entry = stages[i]!;
      stages[i] = { ...entry, config: { ...entry.config, ...config }, configuredAt: { file, at: `configure.${name}` } };
    }
  }
  if (problems.length > before) return null;
  return {
    name: spec.name,
    file,
    origin: p.origin,
    description: spec.description ?? base.description,
    routes: spec.routes ?? base.routes,
    routesFile: spec.routes ? file : base.routesFile,
    stages,
  };
}
