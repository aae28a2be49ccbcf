// Instructions per answer, counted by valgrind's callgrind rather than timed: the same build, the
// same requests and the same inputs give nearly the same count whatever else the machine does,
// so a change of a few per cent can be told apart on a noisy VM, where a timed run cannot (its
// slices differ by ±10 %). The gateway builds (and the bare proxy) each run under callgrind with
// counting off; each serves `--warmup` requests (V8 compiles the hot path), then the counters
// are zeroed, exactly `--requests` requests are answered, and the counters are dumped: every
// thread of the process (JIT code, V8's builtins, the garbage collector, the store's writer
// thread, libuv), divided by the answers. Instructions are not time (a cache miss costs more
// than an add), so the count ranks changes of the code, not of memory behaviour; the timed
// benches (run.mjs, paired.mjs) remain the figures the goals are read from.
//
//   node bench/instructions.mjs --only keys-chat [--gateway-dir D]... [--proxy] [--requests 2000]
//     [--warmup 4000] [--concurrency 8] [--top 25]
//
// --gateway-dir takes what paired.mjs takes (`dir`, `dir:flags`, `dir@overlay.json`).
// --top: the functions (inclusive of nothing: self counts) that execute the most instructions
// per answer, for each gateway build. Needs valgrind (Debian: valgrind).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, startProxy, stopAll } from './lib/children.mjs';
import { openPool, prepareRequest } from './lib/load.mjs';
import { merge, parseSpec } from './lib/paired-targets.mjs';

/** V8's optimizing compiler: how much of it runs in the counted window depends on when its jobs finish, so it is counted apart. */
const COMPILER = /v8::internal::(compiler|maglev|Zone|Compiler|OptimizingCompile|baseline)::|v8::internal::Zone::|v8::internal::Parser|v8::internal::interpreter::/;
/**
 * V8's major collector (marking, sweeping, compacting): it runs every few thousand answers of a
 * keyed scenario, so one window of --requests holds a whole cycle or none (measured: 684 k and
 * 856 k an answer for the same build). Counted apart like the compiler; the scavenger, which runs
 * many times a window, stays in.
 */
const MAJOR_GC = /Marking|MarkCompact|Sweep|Evacuat|Compactor|MemoryChunkData|MarkingBarrier/;

function options(argv) {
  const opts = { only: undefined, dirs: [], proxy: false, requests: 2000, warmup: 4000, concurrency: 8, top: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--only') opts.only = value;
    else if (arg === '--gateway-dir') opts.dirs.push(value);
    else if (arg === '--proxy') {
      opts.proxy = true;
      continue;
    } else if (arg === '--requests') opts.requests = Number(value);
    else if (arg === '--warmup') opts.warmup = Number(value);
    else if (arg === '--concurrency') opts.concurrency = Number(value);
    else if (arg === '--top') opts.top = Number(value);
    else throw new Error(`unknown option ${arg}`);
    i++;
  }
  if (!opts.only) throw new Error('--only <scenario> is required');
  if (!opts.dirs.length) opts.dirs.push('.');
  return opts;
}

/** Sends exactly `n` requests, `concurrency` at a time, each read to its end; the answers that were not 2xx. */
async function send(url, request, n, concurrency) {
  const pool = openPool(url, concurrency);
  const opts = prepareRequest(request);
  let left = n;
  let failed = 0;
  const worker = async () => {
    while (left > 0) {
      left--;
      const res = await pool.request(opts);
      await res.body.dump({ limit: Infinity });
      if (res.statusCode < 200 || res.statusCode >= 300) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return failed;
}

/** callgrind_control on one process (it waits until the process has done what was asked). */
function control(pid, flag) {
  execFileSync('callgrind_control', [flag, String(pid)], { stdio: 'ignore', timeout: 300_000 });
}

/** The total instructions of a dump, and its functions' self counts (fn= lines and the cost lines under them). */
function readDump(file) {
  const text = readFileSync(file, 'utf8');
  const total = Number(/^(?:summary|totals):\s*(\d+)/m.exec(text)?.[1] ?? NaN);
  const names = new Map();
  const self = new Map();
  let current;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) {
      const m = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (m) {
        if (m[2] !== undefined) names.set(m[1], m[2]);
        current = m[1];
      } else current = line.slice(3);
      continue;
    }
    if (line.startsWith('cfn=')) {
      // a name may be defined where it is first called
      const m = /^cfn=\((\d+)\) (.*)$/.exec(line);
      if (m) names.set(m[1], m[2]);
      continue;
    }
    if (/^(cfi|cfl|calls|ob|fl|fi|fe|cob)=/.test(line)) {
      // the line after calls= is the call's inclusive cost, not the function's own
      if (line.startsWith('calls=')) current = current === undefined ? undefined : `\u0000${current}`;
      continue;
    }
    const cost = /^[+-]?\d+ (\d+)$/.exec(line) ?? /^\* (\d+)$/.exec(line);
    if (!cost || current === undefined) continue;
    if (current.startsWith('\u0000')) {
      current = current.slice(1);
      continue;
    }
    self.set(current, (self.get(current) ?? 0) + Number(cost[1]));
  }
  // ids to names (a name may be defined after its function's first costs)
  const named = new Map();
  for (const [id, n] of self) {
    const name = names.get(id) ?? id;
    named.set(name, (named.get(name) ?? 0) + n);
  }
  return { total, self: named };
}

async function measure(target, opts, dir) {
  const failedWarmup = await send(target.url, target.request, opts.warmup, opts.concurrency);
  if (failedWarmup) throw new Error(`${target.name}: ${failedWarmup} warm-up answers were not 2xx`);
  control(target.pid, '--instr=on');
  control(target.pid, '--zero');
  const failed = await send(target.url, target.request, opts.requests, opts.concurrency);
  control(target.pid, '--dump');
  if (process.env.BENCH_KEEP && target.handle.logPath) copyFileSync(target.handle.logPath, join(dir, `gateway.${target.pid}.log`));
  if (failed) throw new Error(`${target.name}: ${failed} answers were not 2xx`);
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith(`cg.${target.pid}`) && f !== `cg.${target.pid}`)
    .sort();
  if (!dumps.length) throw new Error(`${target.name}: callgrind wrote no dump`);
  return readDump(join(dir, dumps[dumps.length - 1]));
}

const opts = options(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
const wrapper = [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  '--dump-instr=no',
  `--callgrind-out-file=${join(dir, 'cg.%p')}`,
  `--log-file=${join(dir, 'valgrind.%p.log')}`,
];
const rows = [];
try {
  const file = join(ROOT, 'bench', 'scenarios', `${opts.only}.mjs`);
  const scenario = (await import(pathToFileURL(file).href)).default;
  const fake = await startFake([file]);
  const setup = await scenario.setup({ fakeUrl: fake.url });
  const config = merge({ logging: { level: process.env.BENCH_LOG_LEVEL ?? 'info' }, providers: { openai: { baseUrl: `${fake.url}/v1` } } }, setup.gatewayConfig);
  const targets = [];
  for (const spec of opts.dirs) {
    const { dir: root, overlay, flags } = parseSpec(spec);
    // Node flags after ':' ('+' for spaces), as paired.mjs takes them: V8's heap settings count too.
    process.env.BENCH_GATEWAY_NODE_ARGS = flags.replaceAll('+', ' ');
    const handle = await startGateway(overlay ? merge(structuredClone(config), overlay) : config, { label: spec, root: resolve(root), wrapper, startTimeoutMs: 600_000 });
    const own = setup.afterStart ? await scenario.setup({ fakeUrl: fake.url }) : setup;
    if (own.afterStart) await own.afterStart({ gatewayUrl: handle.url });
    targets.push({ name: spec, handle, url: handle.url, pid: handle.pid, request: own.request, gateway: true });
  }
  if (opts.proxy && setup.upstreamRequest !== null) {
    const handle = await startProxy(fake.url, { wrapper });
    targets.push({ name: 'proxy', handle, url: handle.url, pid: handle.pid, request: setup.upstreamRequest ?? setup.request, gateway: false });
  }
  for (const target of targets) {
    const { total, self } = await measure(target, opts, dir);
    let compiling = 0;
    let major = 0;
    for (const [name, n] of self) {
      if (COMPILER.test(name)) compiling += n;
      else if (MAJOR_GC.test(name)) major += n;
    }
    rows.push({ target, perAnswer: (total - compiling - major) / opts.requests, compiling: compiling / opts.requests, major: major / opts.requests, self });
    process.stderr.write(
      `${target.name}: ${((total - compiling - major) / opts.requests / 1000).toFixed(1)} k instructions per answer (+${(compiling / opts.requests / 1000).toFixed(1)} k compiling, +${(major / opts.requests / 1000).toFixed(1)} k major GC)\n`,
    );
  }
} finally {
  await stopAll();
  const out = [`${opts.only}: instructions per answer (callgrind, every thread), ${opts.requests} answers at c=${opts.concurrency} after ${opts.warmup} to warm up`, ''];
  const base = rows.find((r) => !r.target.gateway);
  for (const r of rows) {
    const ratio = base ? `  ${(r.perAnswer / base.perAnswer).toFixed(3)} of the proxy` : '';
    out.push(
      `${r.target.name.padEnd(40)} ${(r.perAnswer / 1000).toFixed(1).padStart(9)} k${ratio}  (apart: compiling ${(r.compiling / 1000).toFixed(1)} k, major GC ${(r.major / 1000).toFixed(1)} k)`,
    );
  }
  if (rows.length > 1) {
    const [first, ...rest] = rows;
    for (const r of rest) out.push(`${r.target.name} - ${first.target.name}: ${((r.perAnswer - first.perAnswer) / 1000).toFixed(1)} k instructions per answer`);
  }
  for (const r of opts.top ? rows.filter((x) => x.target.gateway) : []) {
    out.push('', `${r.target.name}: top ${opts.top} functions by own instructions per answer (k)`);
    const top = [...r.self].sort((a, b) => b[1] - a[1]).slice(0, opts.top);
    for (const [name, n] of top) out.push(`${(n / opts.requests / 1000).toFixed(2).padStart(9)}  ${name.slice(0, 150)}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (process.env.BENCH_KEEP) process.stdout.write(`callgrind files kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
