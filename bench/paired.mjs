// Paired comparison of gateway builds (and the bare proxy) under the same machine load: every
// target serves at once against one fake upstream, the load switches between them in short
// slices (order alternating), and each target's CPU per answer is summed over its own slices.
// On a shared machine this is steadier than two bench runs minutes apart.
//
//   node bench/paired.mjs --only openai-chat --concurrency 64 --slices 6 \
//     --gateway-dir /tmp/main-checkout --gateway-dir . --proxy
//
// --gateway-dir may be given several times (each: a checkout with dist/main.js built; `dir:flags`
// adds node flags, `+` for spaces, e.g. `.:--heap-growing-percent=0`). Default: this checkout.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, startProxy, stopAll } from './lib/children.mjs';
import { measureInSlices, pairedDifference } from './lib/slices.mjs';

function options(argv) {
  const opts = { only: 'openai-chat', concurrency: 64, slices: 6, seconds: 1.5, dirs: [], proxy: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only') opts.only = argv[++i];
    else if (arg === '--concurrency') opts.concurrency = Number(argv[++i]);
    else if (arg === '--slices') opts.slices = Number(argv[++i]);
    else if (arg === '--seconds') opts.seconds = Number(argv[++i]);
    else if (arg === '--gateway-dir') opts.dirs.push(argv[++i]);
    else if (arg === '--proxy') opts.proxy = true;
    else throw new Error(`unknown option ${arg}`);
  }
  if (!opts.dirs.length) opts.dirs.push(ROOT);
  return opts;
}

function merge(a, b) {
  for (const [k, v] of Object.entries(b ?? {})) a[k] = v && typeof v === 'object' && !Array.isArray(v) ? merge({ ...(a[k] ?? {}) }, v) : v;
  return a;
}

const opts = options(process.argv.slice(2));
const file = join(ROOT, 'bench', 'scenarios', `${opts.only}.mjs`);
const scenario = (await import(pathToFileURL(file).href)).default;
const fake = await startFake([file]);
try {
  const setup = await scenario.setup({ fakeUrl: fake.url });
  const config = merge({ logging: { level: process.env.BENCH_LOG_LEVEL ?? 'info' }, providers: { openai: { baseUrl: `${fake.url}/v1` } } }, setup.gatewayConfig);
  const targets = [];
  for (const spec of opts.dirs) {
    const [dir, flags = ''] = spec.split(':');
    process.env.BENCH_GATEWAY_NODE_ARGS = flags.replaceAll('+', ' ');
    const handle = await startGateway(config, { label: spec, root: resolve(dir) });
    // A scenario's afterStart (a gateway key minted through the admin API) writes into its request: one setup per gateway.
    const own = setup.afterStart ? await scenario.setup({ fakeUrl: fake.url }) : setup;
    if (own.afterStart) await own.afterStart({ gatewayUrl: handle.url });
    targets.push({ name: spec, handle, url: handle.url, pid: handle.pid, request: own.request });
  }
  if (opts.proxy && setup.upstreamRequest !== null) {
    const handle = await startProxy(fake.url);
    targets.push({ name: 'proxy', handle, url: handle.url, pid: handle.pid, request: setup.upstreamRequest ?? setup.request });
  }
  await measureInSlices(targets, { concurrency: opts.concurrency, slices: opts.slices, seconds: opts.seconds, staggerMs: scenario.staggerMs });
  process.stdout.write(`${opts.only}, c=${opts.concurrency}, ${opts.slices} slices of ${opts.seconds} s per target\n`);
  for (const t of targets) {
    const median = [...t.p50].sort((x, y) => x - y)[t.p50.length >> 1];
    const ttfb = [...t.ttfb].sort((x, y) => x - y)[t.ttfb.length >> 1];
    const peak = typeof t.handle.peakRssMb === 'function' ? `${t.handle.peakRssMb().toFixed(1)} MB` : '-';
    const usPerReq = t.n ? (t.cpu * 1e6) / t.n : NaN;
    const mainUsPerReq = t.n ? (t.mainCpu * 1e6) / t.n : NaN;
    process.stdout.write(
      `${t.name.padEnd(40)} answers ${String(t.n).padStart(7)}  rps ${(t.n / t.seconds).toFixed(0).padStart(6)}  cpu us/req ${usPerReq.toFixed(1).padStart(7)}  main thread ${mainUsPerReq.toFixed(1).padStart(7)}  p50 (median of slices) ${median?.toFixed(3)} ms  ttfb p50 ${ttfb?.toFixed(3)} ms  peak RSS ${peak}\n`,
    );
  }
  // Each target against the first, slice by slice: is the difference more than the machine's noise?
  const [first, ...rest] = targets;
  // The process's CPU, then its main thread's (what bounds the rate of one process; the rest is
  // the garbage collector's helpers, the store's writer thread and libuv's pool).
  for (const t of rest) {
    for (const [what, series] of [
      ['cpu us/req', 'cpuPerAnswer'],
      ['main thread us/req', 'mainCpuPerAnswer'],
    ]) {
      const { mean, halfWidth, n } = pairedDifference(first[series], t[series]);
      const verdict = !(halfWidth >= 0) ? 'too few slices to tell' : Math.abs(mean) > halfWidth ? (mean < 0 ? 'cheaper' : 'dearer') : 'not told apart from noise';
      process.stdout.write(`${t.name} - ${first.name}: ${what} ${mean >= 0 ? '+' : ''}${mean.toFixed(1)} ± ${halfWidth.toFixed(1)} (95 %, ${n} paired slices): ${verdict}\n`);
    }
  }
} finally {
  await stopAll();
}
process.exit(0);
