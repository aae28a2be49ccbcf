// What the paired scripts (paired.mjs, perf-profile.mjs) share: their common options, and the
// targets they measure side by side (gateway builds and the bare proxy against one fake upstream).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, startProxy } from './children.mjs';

/**
 * Options common to the paired scripts (--only, --concurrency, --slices, --seconds, --gateway-dir
 * (repeatable), --proxy) over `defaults`; `more(arg, value)` takes a script's own options (it
 * returns how many arguments it used: 1 for a flag, 2 with a value, 0 if it does not know `arg`).
 */
export function pairedOptions(argv, defaults, more = () => 0) {
  const opts = { only: 'openai-chat', concurrency: 64, slices: 6, seconds: 1.5, dirs: [], proxy: false, ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only') opts.only = argv[++i];
    else if (arg === '--concurrency') opts.concurrency = Number(argv[++i]);
    else if (arg === '--slices') opts.slices = Number(argv[++i]);
    else if (arg === '--seconds') opts.seconds = Number(argv[++i]);
    else if (arg === '--gateway-dir') opts.dirs.push(argv[++i]);
    else if (arg === '--proxy') opts.proxy = true;
    else {
      const used = more(arg, argv[i + 1]);
      if (!used) throw new Error(`unknown option ${arg}`);
      i += used - 1;
    }
  }
  if (!opts.dirs.length) opts.dirs.push(ROOT);
  return opts;
}

/** `b` merged into `a` (objects member by member; a null in `b` removes the member). */
export function merge(a, b) {
  for (const [k, v] of Object.entries(b ?? {})) {
    if (v === null) delete a[k];
    else a[k] = typeof v === 'object' && !Array.isArray(v) ? merge({ ...(a[k] ?? {}) }, v) : v;
  }
  return a;
}

/**
 * A target spec `dir[:flags][@overlay]`: the checkout, node flags ('+' for spaces) and a JSON
 * file merged into that gateway's config (e.g. bench/ablations/*.json: the same build with one
 * part of the path switched off, to see what the part costs).
 */
export function parseSpec(spec) {
  const at = spec.indexOf('@');
  const [dir, flags = ''] = (at < 0 ? spec : spec.slice(0, at)).split(':');
  const overlay = at < 0 ? undefined : JSON.parse(readFileSync(resolve(spec.slice(at + 1)), 'utf8'));
  return { dir, flags, overlay };
}

/**
 * Starts the fake upstream for scenario `only`, a gateway per `dirs` entry (`dir[:flags][@overlay]`,
 * see parseSpec; node flags after `nodeArgs`) and, with `proxy`, the bare proxy (with
 * `nodeArgs`). Returns the scenario and the targets: { name, handle, url, pid, request, dir }
 * (`dir`: the gateway checkout, undefined for the proxy).
 */
export async function startPairedTargets({ only, dirs, proxy, nodeArgs = [] }) {
  const file = join(ROOT, 'bench', 'scenarios', `${only}.mjs`);
  const scenario = (await import(pathToFileURL(file).href)).default;
  const fake = await startFake([file]);
  const setup = await scenario.setup({ fakeUrl: fake.url });
  const config = merge({ logging: { level: process.env.BENCH_LOG_LEVEL ?? 'info' }, providers: { openai: { baseUrl: `${fake.url}/v1` } } }, setup.gatewayConfig);
  const targets = [];
  for (const spec of dirs) {
    const { dir, flags, overlay } = parseSpec(spec);
    process.env.BENCH_GATEWAY_NODE_ARGS = [...nodeArgs, flags.replaceAll('+', ' ')].join(' ');
    const root = resolve(dir);
    const handle = await startGateway(overlay ? merge(structuredClone(config), overlay) : config, { label: spec, root });
    // A scenario's afterStart (a gateway key minted through the admin API) writes into its request: one setup per gateway.
    const own = setup.afterStart ? await scenario.setup({ fakeUrl: fake.url }) : setup;
    if (own.afterStart) await own.afterStart({ gatewayUrl: handle.url });
    targets.push({ name: spec, handle, url: handle.url, pid: handle.pid, request: own.request, dir: root });
  }
  if (proxy && setup.upstreamRequest !== null) {
    const handle = await startProxy(fake.url, { nodeArgs });
    targets.push({ name: 'proxy', handle, url: handle.url, pid: handle.pid, request: setup.upstreamRequest ?? setup.request, dir: undefined });
  }
  return { scenario, targets };
}
