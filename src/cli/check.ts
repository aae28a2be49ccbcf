import type { GatewayConfig } from '../generated/gateway.js';
import { checkConfigFile, checkConfigTree, ConfigError, parseConfigText, configValueAt, registeredFeatures, startupFiles, type CheckedConfig } from '../config.js';
import { PipelineError } from '../kernel/engine/pipeline-compiler.js';

/** The problems of a start-up or reload failure, one line each, naming the key (or file) at fault. */
export function problemLines(err: unknown): string[] {
  if (err instanceof ConfigError || err instanceof PipelineError) return err.problems;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') return [`server.port: cannot listen (${(err as Error).message})`];
  return [`gateway failed to start: ${(err as Error).message}`];
}

/**
 * The config as --check sees it: the real config with nothing it would connect to or change:
 * an in-memory store instead of the configured one, no Redis, logging off, and each feature's
 * part made inert as it declares (an in-memory cache instead of a Redis one).
 */
function inertCopy(config: GatewayConfig): GatewayConfig {
  let copy: GatewayConfig = { ...config, storage: { ...config.storage, type: 'sqlite', path: ':memory:' }, logging: { ...config.logging, level: 'silent' } };
  delete copy.redis;
  for (const feature of registeredFeatures()) if (feature.inert) copy = feature.inert(copy);
  return copy;
}

/**
 * --check: validates the config file and compiles every pipeline (plugins loaded, stages
 * configured) without listening or starting tool servers, batches or connections. Resolves with
 * every problem at once (empty: ok): those of the config file, and those of the plugins and
 * pipelines, which are compiled even when the config has problems (as far as it allows).
 */
export async function checkConfig(path: string): Promise<string[]> {
  let checked: CheckedConfig;
  try {
    checked = checkConfigFile(path);
  } catch (err) {
    return problemLines(err); // unreadable or unparsable: nothing more to check
  }
  return compileChecked(checked);
}

/** The problems of a checked config and of compiling its plugins and pipelines (inert: nothing connects, listens or starts). */
async function compileChecked(checked: CheckedConfig): Promise<string[]> {
  const problems = [...checked.problems];
  try {
    const { createGateway } = await import('../gateway.js');
    const gateway = await createGateway(inertCopy(checked.config));
    await gateway.close(0);
  } catch (err) {
    if (!problems.length) problems.push(...problemLines(err));
    // With problems in the config, only what the compile itself names is added, and not about a
    // key already named (the refused value was left out of the compile: what the compile then
    // says of that key, or of the keys around it, follows from it, and start-up would not say it).
    else if (err instanceof ConfigError || err instanceof PipelineError) {
      const named = problems.map(keyOf).filter(Boolean);
      problems.push(...problemLines(err).filter((line) => !named.some((key) => related(key, keyOf(line)))));
    }
  }
  return [...new Set(problems)];
}

/** The key a problem line names: what comes before its first ": " (`auth.apiKeys[0].key`). */
function keyOf(line: string): string {
  const end = line.indexOf(': ');
  return end > 0 ? line.slice(0, end) : '';
}

/** Whether two keys are the same, or one holds the other (`auth.apiKeys` and `auth.apiKeys[0].key`). */
function related(a: string, b: string): boolean {
  if (!a || !b) return false;
  const holds = (outer: string, inner: string) => inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return a === b || holds(a, b) || holds(b, a);
}

let validating: Promise<unknown> = Promise.resolve();

/**
 * POST /v1/admin/config/validate: a config text (YAML or JSON) checked as --check checks a file:
 * the same loader (environment expansion, schema, cross checks) and the same pipeline compiler,
 * on an inert copy. Plugins and a pipelines folder are code and files on the server: only those
 * the running config already names are loaded (others are named as problems, for --check to
 * look at on the host). One validation at a time.
 */
export function checkConfigText(text: string, source: string, running: GatewayConfig): Promise<string[]> {
  const run = async (): Promise<string[]> => {
    let checked: CheckedConfig;
    try {
      checked = checkConfigTree(parseConfigText(text, source), source);
    } catch (err) {
      return problemLines(err);
    }
    const extra: string[] = [];
    const known = new Set((running.plugins ?? []).map((p) => JSON.stringify(p)));
    (checked.config.plugins ?? []).forEach((p, i) => {
      if (!known.has(JSON.stringify(p))) extra.push(`plugins[${i}]: not loaded by the running gateway, so not loaded to validate (check it on the host: gateway --check)`);
    });
    if ((checked.config.pipelines?.dir ?? null) !== (running.pipelines?.dir ?? null)) {
      extra.push('pipelines.dir: differs from the running config, so its files are not read to validate (check it on the host: gateway --check)');
    }
    // Files on the server: only those the running config already reads are looked at (nothing says whether another path exists).
    let problems = checked.problems;
    for (const { key } of startupFiles()) {
      const file = configValueAt(checked.config, key);
      if (typeof file !== 'string' || !file || file === configValueAt(running, key)) continue;
      problems = problems.filter((p) => !p.startsWith(`${key}: cannot read`));
      extra.push(`${key}: names a file the running config does not, so it is not read to validate (check it on the host: gateway --check)`);
    }
    if (extra.length) return [...new Set([...problems, ...extra])];
    return compileChecked(checked);
  };
  const next = validating.then(run, run);
  validating = next.catch(() => undefined);
  return next;
}
