// The gateway benchmark. `npm run bench` builds dist/ and runs this file.
//
// What it does: starts a fake upstream (bench/lib/fake-upstream.mjs) and a bare forwarding proxy
// (bench/lib/bare-proxy.mjs: node:http + undici, no logic: the floor for any Node gateway) as child
// processes, then for every scenario starts the built gateway (node dist/main.js) as a child with a
// bench config (providers.openai.baseUrl -> the fake, logging.level info, the default pipelines),
// and at each concurrency drives three targets with a closed-loop load generator (bench/lib/load.mjs):
//   direct   straight to the fake upstream
//   proxy    through the bare proxy
//   gateway  through the gateway
// Interleaved: at each concurrency every target gets its own keep-alive Pool and its warm-up, then the
// measured time is split into slices (default 4); each slice measures every target in turn, order
// direct, proxy, gateway on even slices and reversed on odd ones, and a row sums its target's slices
// (answers, CPU, percentiles over all samples). So every target sees the same machine: on a shared VM
// its speed drifts over seconds, and back-to-back rows would not. --slices 1: one after the other.
// It prints two fixed-width tables (every row; then the gateway against direct and proxy, with the
// gateway's peak RSS = VmHWM of its process) and writes the same as JSON to bench/results/latest.json.
//
// Options:
//   --only <names>         scenarios to run (comma- or space-separated names; default all)
//   --concurrency 1,16     concurrency levels (default 1,16,64)
//   --targets gateway      which targets to drive (default direct,proxy,gateway)
//   --slices 4             slices each row's measured time is split into, targets interleaved
//                          (default BENCH_SLICES or 4; 1: the targets one after the other)
//   --profile              run the gateway with --cpu-prof; prints the top costs and keeps the
//                          profile in bench/results/profiles/<scenario>.cpuprofile (the bare proxy
//                          too when it is a target: bare-proxy.cpuprofile, over all its rows)
//   --heap                 stream scenarios: also read the proxy's and the gateway's JS heap after a full GC,
//                          at rest (after the prewarm) and once per row with the streams open (halfway through its last slice,
//                          right after the RSS): the `heap KB/open` columns, what the open streams hold in
//                          the heap apart from garbage not yet collected and heap V8 keeps reserved, which
//                          RSS counts too (bench/lib/heap-probe.mjs, preloaded only then; the GC it forces
//                          costs that slice some CPU, so CPU figures are cleaner without --heap)
//   --gateway-dir <path>   the gateway build to run: <path>/dist/main.js with its pipelines/ (default:
//                          this repository), e.g. another checkout to compare two builds
//   --list                 list the scenarios and exit
// Environment: BENCH_SECONDS (measured seconds per row, all slices together, default 4), BENCH_WARMUP
//   (default 1), BENCH_SLICES (default 4, see --slices),
//   BENCH_PREWARM (seconds each new gateway, and the proxy, serve a scenario's request at c=8 before
//   its first row, so the first row does not measure V8 compiling the hot path; default 3),
//   BENCH_LOG_LEVEL (the gateway's logging.level, default info: one JSON line per request).
//
// Scenarios: every bench/scenarios/*.mjs default-exports
//   {
//     name: 'openai-chat',                  // unique; used by --only
//     description: '...',
//     stream: true,                          // optional: show time to first byte for this scenario
//     concurrency: [1, 4],                   // optional: the levels this scenario runs at instead of the
//                                            // default 1,16,64 (with --concurrency: the levels in both)
//     seconds: 8, warmup: 2,                 // optional: measured and warm-up seconds of its rows (long
//                                            // streams need more than the default; BENCH_SECONDS wins)
//     slices: 1,                             // optional: slices of its rows (--slices / BENCH_SLICES win)
//     staggerMs: 550,                        // optional: each phase's c workers start spread over this
//                                            // many ms (long streams, so they do not start in step)
//     upstream: { 'POST /x/:id': (req, res, ctx) => ... },   // optional: extra fake-upstream routes
//                                            // (run inside the fake's process; see fake-upstream.mjs)
//     setup({ fakeUrl }) {                   // called once the fake is up
//       return {
//         gatewayConfig: { ... },            // deep-merged into the bench gateway config (objects merge,
//                                            // arrays and scalars replace)
//         request: { method, path, headers, body },   // what the load generator sends the gateway;
//                                            // body: object (sent as JSON), string or Buffer
//         upstreamRequest: { ... } | null,   // optional: what the direct and proxy rows send
//                                            // (default: request; null: no direct/proxy rows)
//         afterStart({ gatewayUrl }),        // optional: runs once the gateway is up, before any load
//                                            // (e.g. mints a gateway key and sets it in request.headers)
//         expect(sample, target) -> true | 'what is wrong',   // optional: checked on one answer per
//                                            // row; sample = { status, headers, body: Buffer }.
//                                            // Default: status 2xx.
//       };
//     },
//   }
// The bench gateway config before merging: { logging: { level }, providers: { openai: { baseUrl:
// `${fakeUrl}/v1` } } } (server host/port and the data folder are set by the bench).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, startProxy, stopAll } from './lib/children.mjs';
import { mergeResults, openPool, runCell } from './lib/load.mjs';
import { cpuOver, cpuSnapshot } from './lib/cpu.mjs';
import { formatTable } from './lib/table.mjs';
import { formatProfile, summarizeProfile } from './lib/profile-summary.mjs';

const BENCH_DIR = join(ROOT, 'bench');
const RESULTS_DIR = join(BENCH_DIR, 'results');
const TARGETS = ['direct', 'proxy', 'gateway'];

/** Goals, reported in the notes (not asserted). */
const GOALS = {
  pacedCpuRatio: 1.15,
  pacedFirstByteP50Ms: 2,
  pacedFirstByteP99Ms: 10,
  kbPerOpenStream: 30,
  anthropicThroughputRatioAt64: 0.65,
  throughputRatioAt64: 0.8,
  translatedThroughputRatioAt64: 0.6,
  addedP50AtC1Ms: 0.15,
  streamFirstByteLaterMs: 0.3,
  peakRssMb: 150,
  restRssMb: 100,
};
/** Scenarios whose stream the gateway translates (their throughput goal is translatedThroughputRatioAt64). */
const TRANSLATED = new Set(['anthropic-chat-stream', 'messages-openai-stream', 'responses-chat-stream']);
/** Scenarios of slow streams (events apart): their goals are CPU per stream and the first byte against the bare proxy (issue 23). */
const PACED = new Set(['openai-chat-stream-paced', 'streams-open-5000']);

function parseArgs(argv) {
  const opts = { only: [], concurrency: [1, 16, 64], targets: TARGETS, profile: false, list: false, gatewayDir: ROOT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const values = () => {
      const out = [];
      while (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out.push(...argv[++i].split(',').filter(Boolean));
      return out;
    };
    if (arg === '--only') opts.only.push(...values());
    else if (arg === '--concurrency') {
      opts.concurrency = values().map(Number);
      opts.concurrencyGiven = true;
    } else if (arg === '--targets') opts.targets = values();
    else if (arg === '--slices') opts.slices = sliceCount('--slices', argv[++i]);
    else if (arg === '--profile') opts.profile = true;
    else if (arg === '--heap') opts.heap = true;
    else if (arg === '--gateway-dir') opts.gatewayDir = resolve(argv[++i] ?? '.');
    else if (arg === '--list') opts.list = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new Error(`unknown option ${arg} (see the top of bench/run.mjs)`);
  }
  if (!opts.concurrency.length || opts.concurrency.some((c) => !Number.isInteger(c) || c < 1 || c > 10000)) {
    throw new Error('--concurrency takes positive integers, e.g. --concurrency 1,16');
  }
  const badTarget = opts.targets.find((t) => !TARGETS.includes(t));
  if (badTarget) throw new Error(`unknown target ${badTarget} (one of ${TARGETS.join(', ')})`);
  return opts;
}

function sliceCount(name, raw) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`${name} takes a whole number of slices (1-100)`);
  return n;
}

function seconds(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > 600) throw new Error(`${name} must be a number of seconds (${min}-600)`);
  return n;
}

async function loadScenarios() {
  const dir = join(BENCH_DIR, 'scenarios');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort();
  const out = [];
  for (const file of files) {
    const path = join(dir, file);
    const mod = await import(pathToFileURL(path).href);
    const scenario = mod.default;
    if (!scenario?.name || typeof scenario.setup !== 'function') throw new Error(`${file}: must default-export { name, setup() }`);
    if (out.some((s) => s.name === scenario.name)) throw new Error(`${file}: scenario name ${scenario.name} is used twice`);
    out.push({ ...scenario, file: path });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
}

export function deepMerge(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra ?? {})) out[key] = isObject(value) && isObject(out[key]) ? deepMerge(out[key], value) : value;
  return out;
}

function check(setup, sample, target) {
  if (!sample) return 'no answer';
  const verdict = setup.expect ? setup.expect(sample, target) : sample.status >= 200 && sample.status < 300 ? true : `status ${sample.status}`;
  return verdict === true || verdict === undefined ? 'ok' : String(verdict);
}

/**
 * The RSS with the streams open: the slice whose sample had the most in flight (its RSS, the
 * count open then, and (RSS - rest) per open stream in KB).
 */
function openRss(samples, rest) {
  const best = samples.filter((s) => s.mb !== null && s.open > 0).sort((a, b) => b.open - a.open || b.mb - a.mb)[0];
  if (!best) return { openRssMb: null, openStreams: null, kbPerOpenStream: null };
  return { openRssMb: round(best.mb, 1), openStreams: best.open, kbPerOpenStream: rest === null ? null : round(((best.mb - rest) * 1024) / best.open, 1) };
}

/**
 * With --heap: the heap of the process with its streams open, after a full GC, against its heap
 * after a GC at rest. The streams counted are those the process holds (its open files beyond those
 * at rest, two sockets a stream: caller and upstream), when fewer than the load generator has in
 * flight (streams still waiting to be accepted hold nothing there yet): inProcess. Then
 * heapKbPerOpenStream = (held open - held at rest) / inProcess, in KB, where held = heap used +
 * ArrayBuffers; rssKbPerOpenInProcess = (RSS then - RSS at rest) / inProcess (RSS at rest as for
 * KB/open); heapGarbageMb = what that GC freed; the raw readings (MB) in heapOpen and heapRest.
 */
async function openHeapFigures(openHeap, rest, restRssMb) {
  // The JS heap and the ArrayBuffers it holds (request bodies, chunks: outside the heap, in RSS).
  const held = (m) => m.heapUsedMb + m.arrayBuffersMb;
  if (!openHeap) return {};
  const open = await openHeap.read;
  if (!open || !rest || !openHeap.open) return { heapKbPerOpenStream: null };
  const bySockets = open.fds !== null && rest.fds !== null ? Math.floor((open.fds - rest.fds) / 2) : null;
  const inProcess = bySockets !== null && bySockets > 0 ? Math.min(openHeap.open, bySockets) : openHeap.open;
  return {
    openInProcess: inProcess,
    heapKbPerOpenStream: round(((held(open.after) - held(rest.after)) * 1024) / inProcess, 1),
    rssKbPerOpenInProcess: restRssMb === null ? null : round(((open.before.rssMb - restRssMb) * 1024) / inProcess, 1),
    heapGarbageMb: round(open.before.heapUsedMb - open.after.heapUsedMb, 1),
    heapOpen: { open: openHeap.open, fds: open.fds, before: open.before, after: open.after },
    heapRest: { fds: rest.fds, after: rest.after },
  };
}

/** A process's resident set size now (VmRSS), in MB. */
function rssMbOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function round(n, digits = 3) {
  return n === null || n === undefined ? null : Number(n.toFixed(digits));
}

function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else process.stderr.write(`${text}\n`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const all = await loadScenarios();
  if (opts.help || opts.list) {
    if (opts.help)
      process.stdout.write(
        'usage: npm run bench -- [--only names] [--concurrency 1,16,64] [--targets direct,proxy,gateway] [--slices 4] [--profile] [--gateway-dir path] [--list]\n\n',
      );
    for (const s of all) process.stdout.write(`${s.name.padEnd(28)} ${s.description ?? ''}\n`);
    return;
  }
  const unknown = opts.only.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${all.map((s) => s.name).join(', ')}`);
  const scenarios = opts.only.length ? all.filter((s) => opts.only.includes(s.name)) : all;
  const warmupMs = seconds('BENCH_WARMUP', 1, 0) * 1000;
  const measureMs = seconds('BENCH_SECONDS', 4, 0.1) * 1000;
  const prewarmMs = seconds('BENCH_PREWARM', 3, 0) * 1000;
  const slices = opts.slices ?? (process.env.BENCH_SLICES ? sliceCount('BENCH_SLICES', process.env.BENCH_SLICES) : 4);
  const logLevel = process.env.BENCH_LOG_LEVEL || 'info';
  if (!existsSync(join(opts.gatewayDir, 'dist', 'main.js'))) throw new Error(`${join(opts.gatewayDir, 'dist', 'main.js')} is missing: run \`npm run build\` (npm run bench does)`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const profileDir = join(RESULTS_DIR, 'profiles');
  if (opts.profile) mkdirSync(profileDir, { recursive: true });

  const fake = await startFake(scenarios.map((s) => s.file));
  const profilesProxy = opts.profile && opts.targets.includes('proxy');
  if (profilesProxy) rmSync(join(profileDir, 'bare-proxy.cpuprofile'), { force: true });
  const proxy = await startProxy(fake.url, { cpuProfDir: profilesProxy ? profileDir : undefined, heapProbe: opts.heap });
  // The bare proxy's RSS before it served anything (per open stream = (open - rest) / c).
  const proxyRestRss = rssMbOf(proxy.pid);
  const rows = [];
  const gateways = [];
  const notes = [];
  const profiles = [];
  try {
    for (const scenario of scenarios) {
      const setup = await scenario.setup({ fakeUrl: fake.url });
      const base = { logging: { level: logLevel }, providers: { openai: { baseUrl: `${fake.url}/v1` } } };
      const config = deepMerge(base, setup.gatewayConfig);
      // A scenario's own levels replace the default list; with --concurrency, only the levels in both run.
      const levels = !scenario.concurrency ? opts.concurrency : opts.concurrencyGiven ? opts.concurrency.filter((c) => scenario.concurrency.includes(c)) : scenario.concurrency;
      const targets = setup.upstreamRequest === null ? opts.targets.filter((t) => t === 'gateway') : opts.targets;
      const wantsGateway = targets.includes('gateway');
      const rowWarmupMs = process.env.BENCH_WARMUP || scenario.warmup === undefined ? warmupMs : scenario.warmup * 1000;
      const rowMeasureMs = process.env.BENCH_SECONDS || scenario.seconds === undefined ? measureMs : scenario.seconds * 1000;
      const rowSlices = opts.slices === undefined && !process.env.BENCH_SLICES && scenario.slices !== undefined ? scenario.slices : slices;
      progress(`${scenario.name}: starting the gateway`);
      const readsHeap = opts.heap === true && scenario.stream === true;
      const gateway = wantsGateway
        ? await startGateway(config, { cpuProfDir: opts.profile ? profileDir : undefined, label: scenario.name, root: opts.gatewayDir, heapProbe: opts.heap })
        : undefined;
      let gatewayExit;
      // RSS of the gateway at rest: started, healthy, no request served yet.
      const restRss = gateway ? gateway.rssMb() : null;
      // With --heap: the heap after a GC once warm (after the prewarm, idle), of each target; per open
      // stream = (open - rest) / open. Warm, so that code compiled and caches filled by the first
      // requests do not count as held by the streams (a GC leaves no garbage to count either way).
      let restHeap = null;
      let proxyRestHeap = null;
      let restWarmRss = null; // E.g. a gateway key minted through the admin API, which the scenario's request then carries.
      if (gateway && setup.afterStart) await setup.afterStart({ gatewayUrl: gateway.url });
      try {
        if (prewarmMs > 0) {
          for (const target of targets.filter((t) => t !== 'direct')) {
            progress(`${scenario.name}: warming the ${target} up`);
            const origin = target === 'proxy' ? proxy.url : gateway.url;
            const request = target === 'gateway' ? setup.request : (setup.upstreamRequest ?? setup.request);
            await runCell({ origin, request, concurrency: 8, warmupMs: 0, measureMs: prewarmMs });
          }
        }
        if (readsHeap) {
          if (gateway) restHeap = await gateway.heap();
          if (targets.includes('proxy')) proxyRestHeap = await proxy.heap();
        }
        if (gateway) restWarmRss = gateway.rssMb();
        for (const concurrency of levels) {
          const pids = { bench: process.pid, fake: fake.pid, proxy: proxy.pid, gateway: gateway?.pid };
          // One Pool per target, kept for all its slices (no reconnect between slices).
          const cells = targets.map((target) => {
            const origin = target === 'direct' ? fake.url : target === 'proxy' ? proxy.url : gateway.url;
            const request = target === 'gateway' ? setup.request : (setup.upstreamRequest ?? setup.request);
            return { target, origin, request, pool: openPool(origin, concurrency), results: [], upstreamRequests: 0, upstreamConnections: 0, openRssMb: [], openHeap: null };
          });
          // Runs fn between two reads of the fake's counters and adds what it sent upstream to the cell
          // (warm-up included, as the `up conns` column says).
          const counting = async (cell, fn) => {
            const before = await fake.stats();
            const out = await fn();
            const after = await fake.stats();
            cell.upstreamRequests += after.requests - before.requests;
            cell.upstreamConnections += after.connections - before.connections - 1; // minus the stats request's own
            return out;
          };
          try {
            // With one slice, each target's warm-up runs right before its measured phase (one after the
            // other); with more, every target is warmed up first, then the slices alternate the order.
            if (rowSlices > 1 && rowWarmupMs > 0) {
              for (const cell of cells) {
                progress(`${scenario.name}: c=${concurrency} ${cell.target} warm-up`);
                await counting(cell, () =>
                  runCell({ origin: cell.origin, request: cell.request, concurrency, warmupMs: rowWarmupMs, measureMs: 0, pool: cell.pool, staggerMs: scenario.staggerMs }),
                );
              }
            }
            for (let i = 0; i < rowSlices; i++) {
              for (const cell of i % 2 ? [...cells].reverse() : cells) {
                progress(`${scenario.name}: c=${concurrency} ${cell.target}${rowSlices > 1 ? ` slice ${i + 1}/${rowSlices}` : ''}`);
                const result = await counting(cell, () =>
                  runCell({
                    origin: cell.origin,
                    request: cell.request,
                    concurrency,
                    warmupMs: rowSlices > 1 ? 0 : rowWarmupMs,
                    staggerMs: scenario.staggerMs,
                    measureMs: rowMeasureMs / rowSlices,
                    onMeasure: () => cpuSnapshot(pids),
                    // RSS of the proxy or gateway halfway through the slice, with its c requests in flight.
                    onMidway:
                      cell.target === 'direct'
                        ? undefined
                        : (open) => {
                            cell.openRssMb.push({ mb: rssMbOf(cell.target === 'proxy' ? proxy.pid : gateway.pid), open });
                            // With --heap, in the last slice: the heap after a GC, right after the RSS.
                            if (readsHeap && i === rowSlices - 1) cell.openHeap = { open, read: (cell.target === 'proxy' ? proxy : gateway).heap() };
                          },
                    pool: cell.pool,
                    samples: true,
                  }),
                );
                cell.results.push(result);
              }
            }
          } finally {
            await Promise.all(cells.map((cell) => cell.pool.close().catch(() => undefined)));
          }
          for (const { target, results, upstreamRequests, upstreamConnections, openRssMb, openHeap } of cells) {
            const result = mergeResults(results);
            const cpu = cpuOver(result.marks.map((m) => [m.start, m.end]));
            // The process this row measures: the fake itself for direct, else the proxy or the gateway.
            const served = cpu.procs[target === 'direct' ? 'fake' : target];
            rows.push({
              scenario: scenario.name,
              stream: scenario.stream === true,
              concurrency,
              target,
              requests: result.requests,
              errors: result.errors,
              statuses: result.statuses,
              lastError: result.lastError,
              seconds: round(result.seconds),
              rps: round(result.rps, 1),
              responseMBps: round(result.responseMBps, 2),
              p50: round(result.latency.p50),
              p90: round(result.latency.p90),
              p99: round(result.latency.p99),
              max: round(result.latency.max),
              ttfbP50: round(result.ttfb.p50),
              ttfbP99: round(result.ttfb.p99),
              check: check(setup, result.sample, target),
              monotonicWindowsUs: result.marks.map((m) => [Number(m.start.at / 1000n), Number(m.end.at / 1000n)]),
              cpuPct: Object.fromEntries(Object.entries(cpu.procs).map(([k, v]) => [k, round(v.pct, 1)])),
              servedCpuPct: round(served?.pct, 1),
              servedCpuUsPerRequest: result.requests ? round((served.seconds * 1e6) / result.requests, 1) : null,
              upstreamRequests,
              upstreamConnections,
              ...openRss(openRssMb, target === 'gateway' ? restRss : target === 'proxy' ? proxyRestRss : null),
              ...(await openHeapFigures(openHeap, target === 'gateway' ? restHeap : proxyRestHeap, target === 'gateway' ? restRss : proxyRestRss)),
              othersCpuPct: round(cpu.othersPct, 1),
              stealPct: round(cpu.stealPct, 1),
            });
          }
        }
      } finally {
        if (gateway) {
          const peak = gateway.exited ? null : gateway.peakRssMb();
          gatewayExit = await gateway.stop();
          gateways.push({
            scenario: scenario.name,
            restRssMb: round(restRss, 1),
            // RSS after the prewarm, before the first row (with --heap: after a GC): not in KB/open, which counts from restRssMb.
            restWarmRssMb: round(restWarmRss, 1),
            peakRssMb: round(peak, 1),
            exit: gatewayExit.code ?? gatewayExit.signal,
          });
          // One info line per request is expected; warnings and errors are worth a note.
          const loud = gatewayExit.logLines.filter((line) => !/^\{"level":(10|20|30),/.test(line));
          if (loud.length) notes.push(`${scenario.name}: the gateway logged ${loud.length} line(s) at warn or above; first: ${loud[0].slice(0, 300)}`);
        }
      }
      if (opts.profile && wantsGateway) {
        const file = join(profileDir, `${scenario.name}.cpuprofile`);
        const windows = rows.filter((r) => r.scenario === scenario.name && r.target === 'gateway').flatMap((r) => r.monotonicWindowsUs);
        const requests = rows.filter((r) => r.scenario === scenario.name && r.target === 'gateway').reduce((n, r) => n + r.requests, 0);
        if (existsSync(file)) profiles.push({ scenario: scenario.name, file, requests, summary: summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), windows) });
        else notes.push(`${scenario.name}: no CPU profile was written (the gateway exited with ${gatewayExit?.code ?? gatewayExit?.signal})`);
      }
    }
  } finally {
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    await stopAll();
  }
  // The bare proxy's profile (one process for every scenario): the floor's own costs, over its rows.
  if (profilesProxy) {
    const file = join(profileDir, 'bare-proxy.cpuprofile');
    const proxyRows = rows.filter((r) => r.target === 'proxy');
    const requests = proxyRows.reduce((n, r) => n + r.requests, 0);
    if (existsSync(file))
      profiles.push({
        scenario: 'bare proxy',
        file,
        requests,
        summary: summarizeProfile(
          JSON.parse(readFileSync(file, 'utf8')),
          proxyRows.flatMap((r) => r.monotonicWindowsUs),
        ),
      });
    else notes.push('no CPU profile of the bare proxy was written');
  }

  const summary = summarize(rows, gateways);
  printReport({ rows, summary, gateways, notes, warmupMs, measureMs, slices, logLevel });
  for (const p of profiles) {
    process.stdout.write(
      `\nCPU profile of ${p.scenario === 'bare proxy' ? 'the bare proxy' : `the gateway, ${p.scenario}`} (${p.file.slice(ROOT.length + 1)}):\n${formatProfile(p.summary, Number(process.env.BENCH_PROFILE_TOP ?? 25), p.summary.windowed ? p.requests : 0)}\n`,
    );
  }
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    warmupSeconds: warmupMs / 1000,
    measureSeconds: measureMs / 1000,
    slices,
    gatewayLogLevel: logLevel,
    gatewayDir: opts.gatewayDir,
    goals: GOALS,
    rows,
    summary,
    gateways,
    notes,
    profiles: profiles.map((p) => ({
      scenario: p.scenario,
      file: p.file.slice(ROOT.length + 1),
      busyMs: round(p.summary.busyMs, 1),
      topSelf: [...p.summary.functions]
        .sort((a, b) => b.selfMs - a.selfMs)
        .slice(0, 25)
        .map((f) => ({ name: f.name, selfPct: round(f.selfPct, 2), totalPct: round(f.totalPct, 2) })),
      areas: [...p.summary.categories].sort((a, b) => b.selfMs - a.selfMs).map((c) => ({ name: c.name, selfPct: round(c.selfPct, 2), totalPct: round(c.totalPct, 2) })),
    })),
  };
  writeFileSync(join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nResults: bench/results/latest.json\n`);
  if (rows.some((r) => r.check !== 'ok' || r.requests === 0)) process.exitCode = 1;
}

/** The gateway against direct and proxy, per scenario and concurrency. */
function summarize(rows, gateways) {
  const out = [];
  const keys = [...new Set(rows.map((r) => `${r.scenario}\u0000${r.concurrency}`))];
  for (const key of keys) {
    const [scenario, c] = key.split('\u0000');
    const concurrency = Number(c);
    const pick = (target) => rows.find((r) => r.scenario === scenario && r.concurrency === concurrency && r.target === target);
    const d = pick('direct');
    const p = pick('proxy');
    const g = pick('gateway');
    if (!g) continue;
    const diff = (a, b) => (a != null && b != null ? round(a - b) : null);
    out.push({
      scenario,
      concurrency,
      stream: g.stream,
      gatewayRps: g.rps,
      proxyRps: p?.rps ?? null,
      directRps: d?.rps ?? null,
      throughputVsProxy: p?.rps ? round(g.rps / p.rps, 3) : null,
      addedP50VsDirect: diff(g.p50, d?.p50),
      addedP50VsProxy: diff(g.p50, p?.p50),
      addedP99VsDirect: diff(g.p99, d?.p99),
      ttfbP50: { direct: d?.ttfbP50 ?? null, proxy: p?.ttfbP50 ?? null, gateway: g.ttfbP50 },
      firstByteLaterVsDirect: diff(g.ttfbP50, d?.ttfbP50),
      firstByteLaterVsProxy: diff(g.ttfbP50, p?.ttfbP50),
      firstByteP99LaterVsProxy: diff(g.ttfbP99, p?.ttfbP99),
      cpuVsProxy: p?.servedCpuUsPerRequest && g.servedCpuUsPerRequest ? round(g.servedCpuUsPerRequest / p.servedCpuUsPerRequest, 3) : null,
      failed: g.errors,
      kbPerOpenStream: g.kbPerOpenStream,
      proxyKbPerOpenStream: p?.kbPerOpenStream ?? null,
      heapKbPerOpenStream: g.heapKbPerOpenStream ?? null,
      proxyHeapKbPerOpenStream: p?.heapKbPerOpenStream ?? null,
      restRssMb: gateways.find((x) => x.scenario === scenario)?.restRssMb ?? null,
      peakRssMb: gateways.find((x) => x.scenario === scenario)?.peakRssMb ?? null,
    });
  }
  return out;
}

function printReport({ rows, summary, gateways, notes, warmupMs, measureMs, slices, logLevel }) {
  const w = (s) => process.stdout.write(`${s}\n`);
  const heapRead = rows.some((r) => r.heapKbPerOpenStream != null);
  w(`AI gateway bench: node ${process.version}, ${cpus().length} CPU(s), ${warmupMs / 1000}s warm-up + ${measureMs / 1000}s per row, gateway logging.level ${logLevel}`);
  w(
    slices > 1
      ? `Targets interleaved: each row's ${measureMs / 1000}s measured in ${slices} slices of ${measureMs / slices / 1000}s, order direct, proxy, gateway then reversed, so every target sees the same machine.`
      : 'Targets measured one after the other (1 slice: warm-up and measure per row).',
  );
  w('MB/s: answer bodies received. Latencies in ms (to the last byte; ttfb = to the first body byte). Closed loop: c workers, one keep-alive connection each.');
  w('cpu% and cpu us/req: the process the row measures (fake for direct, else proxy or gateway), % of one core.');
  w('up conns: TCP connections the fake upstream accepted during the row (warm-up included); more than c means keep-alive was lost.');
  w('others%: CPU used by processes outside the bench during the row, steal%: taken by the host; high values mean noisy figures.\n');
  w(
    formatTable(
      [
        { title: 'scenario', value: (r) => r.scenario },
        { title: 'c', value: (r) => r.concurrency, digits: 0 },
        { title: 'target', value: (r) => r.target },
        { title: 'rps', value: (r) => (r.rps < 100 ? r.rps.toFixed(1) : r.rps.toFixed(0)), align: 'right' },
        { title: 'MB/s', value: (r) => r.responseMBps, digits: 1 },
        { title: 'p50', value: (r) => r.p50, digits: 3 },
        { title: 'p90', value: (r) => r.p90, digits: 3 },
        { title: 'p99', value: (r) => r.p99, digits: 3 },
        { title: 'ttfb p50', value: (r) => (r.stream ? r.ttfbP50 : null), digits: 3 },
        { title: 'ttfb p99', value: (r) => (r.stream ? r.ttfbP99 : null), digits: 3 },
        { title: 'requests', value: (r) => r.requests, digits: 0 },
        { title: 'errors', value: (r) => r.errors, digits: 0 },
        { title: 'cpu%', value: (r) => r.servedCpuPct, digits: 0 },
        { title: 'cpu us/req', value: (r) => r.servedCpuUsPerRequest, digits: 0 },
        { title: 'up conns', value: (r) => r.upstreamConnections, digits: 0 },
        { title: 'open', value: (r) => (r.stream ? r.openStreams : null), digits: 0 },
        { title: 'open RSS MB', value: (r) => (r.stream ? r.openRssMb : null), digits: 1 },
        { title: 'KB/open', value: (r) => (r.stream ? r.kbPerOpenStream : null), digits: 1 },
        ...(heapRead
          ? [
              { title: 'open in proc', value: (r) => (r.stream ? (r.openInProcess ?? null) : null), digits: 0 },
              { title: 'KB/open in proc', value: (r) => (r.stream ? (r.rssKbPerOpenInProcess ?? null) : null), digits: 1 },
              { title: 'heap KB/open', value: (r) => (r.stream ? (r.heapKbPerOpenStream ?? null) : null), digits: 1 },
            ]
          : []),
        { title: 'others%', value: (r) => r.othersCpuPct, digits: 0 },
        { title: 'steal%', value: (r) => r.stealPct, digits: 0 },
        { title: 'check', value: (r) => (r.check === 'ok' ? 'ok' : r.check.slice(0, 80)) },
      ],
      rows,
    ),
  );
  w('\nThe gateway against direct and the bare proxy (+ = ms the gateway adds; first byte = ttfb p50):\n');
  w(
    formatTable(
      [
        { title: 'scenario', value: (s) => s.scenario },
        { title: 'c', value: (s) => s.concurrency, digits: 0 },
        { title: 'gw rps', value: (s) => (s.gatewayRps < 100 ? s.gatewayRps.toFixed(1) : s.gatewayRps.toFixed(0)), align: 'right' },
        { title: 'proxy rps', value: (s) => (s.proxyRps === null ? null : s.proxyRps < 100 ? s.proxyRps.toFixed(1) : s.proxyRps.toFixed(0)), align: 'right' },
        { title: 'gw/proxy', value: (s) => s.throughputVsProxy, digits: 2 },
        { title: 'cpu/req gw/proxy', value: (s) => s.cpuVsProxy, digits: 2 },
        { title: '+p50 vs direct', value: (s) => s.addedP50VsDirect, digits: 3 },
        { title: '+p50 vs proxy', value: (s) => s.addedP50VsProxy, digits: 3 },
        { title: '+p99 vs direct', value: (s) => s.addedP99VsDirect, digits: 3 },
        { title: '1st byte direct', value: (s) => (s.stream ? s.ttfbP50.direct : null), digits: 3 },
        { title: 'proxy', value: (s) => (s.stream ? s.ttfbP50.proxy : null), digits: 3 },
        { title: 'gw', value: (s) => (s.stream ? s.ttfbP50.gateway : null), digits: 3 },
        { title: '+1st byte vs direct', value: (s) => (s.stream ? s.firstByteLaterVsDirect : null), digits: 3 },
        { title: '+1st byte p50 vs proxy', value: (s) => (s.stream ? s.firstByteLaterVsProxy : null), digits: 3 },
        { title: '+1st byte p99 vs proxy', value: (s) => (s.stream ? s.firstByteP99LaterVsProxy : null), digits: 3 },
        { title: 'KB/open gw', value: (s) => (s.stream ? s.kbPerOpenStream : null), digits: 1 },
        { title: 'proxy', value: (s) => (s.stream ? s.proxyKbPerOpenStream : null), digits: 1 },
        ...(heapRead
          ? [
              { title: 'heap KB/open gw', value: (s) => (s.stream ? s.heapKbPerOpenStream : null), digits: 1 },
              { title: 'proxy', value: (s) => (s.stream ? s.proxyHeapKbPerOpenStream : null), digits: 1 },
            ]
          : []),
        { title: 'rest RSS MB', value: (s) => s.restRssMb, digits: 1 },
        { title: 'peak RSS MB', value: (s) => s.peakRssMb, digits: 1 },
      ],
      summary,
    ),
  );
  w('\nGoals (notes, not asserted):');
  const verdict = (ok) => (ok === null ? 'n/a' : ok ? 'met' : 'missed');
  for (const s of summary) {
    if (PACED.has(s.scenario) && s.cpuVsProxy !== null) {
      w(
        `  ${s.scenario} c=${s.concurrency}: CPU per stream ${s.cpuVsProxy.toFixed(2)} of the bare proxy's (goal <= ${GOALS.pacedCpuRatio}): ${verdict(s.cpuVsProxy <= GOALS.pacedCpuRatio)}; ` +
          `first byte p50 +${s.firstByteLaterVsProxy} ms (goal <= ${GOALS.pacedFirstByteP50Ms}): ${verdict(s.firstByteLaterVsProxy <= GOALS.pacedFirstByteP50Ms)}; ` +
          `p99 +${s.firstByteP99LaterVsProxy} ms (goal <= ${GOALS.pacedFirstByteP99Ms}): ${verdict(s.firstByteP99LaterVsProxy <= GOALS.pacedFirstByteP99Ms)}; failed streams ${s.failed} (goal 0): ${verdict(s.failed === 0)}`,
      );
    }
    if (s.kbPerOpenStream !== null && s.concurrency >= 2000) {
      w(
        `  ${s.scenario} c=${s.concurrency}: ${s.kbPerOpenStream} KB of RSS per open stream (goal <= ${GOALS.kbPerOpenStream}): ${verdict(s.kbPerOpenStream <= GOALS.kbPerOpenStream)}`,
      );
    }
    if (s.concurrency === 64 && s.throughputVsProxy !== null) {
      const goal =
        s.scenario === 'anthropic-chat-stream' ? GOALS.anthropicThroughputRatioAt64 : TRANSLATED.has(s.scenario) ? GOALS.translatedThroughputRatioAt64 : GOALS.throughputRatioAt64;
      w(`  ${s.scenario} c=64: throughput ${s.throughputVsProxy.toFixed(2)} of the bare proxy (goal >= ${goal}): ${verdict(s.throughputVsProxy >= goal)}`);
    }
    if (s.concurrency === 1 && s.addedP50VsProxy !== null) {
      w(
        `  ${s.scenario} c=1: adds ${s.addedP50VsProxy.toFixed(3)} ms at p50 over the bare proxy (goal <= ${GOALS.addedP50AtC1Ms}): ${verdict(s.addedP50VsProxy <= GOALS.addedP50AtC1Ms)}`,
      );
    }
    if (s.stream && s.concurrency === 1 && s.firstByteLaterVsProxy !== null) {
      w(
        `  ${s.scenario} c=1: first byte ${s.firstByteLaterVsProxy.toFixed(3)} ms later than the bare proxy's (goal <= ${GOALS.streamFirstByteLaterMs}): ${verdict(s.firstByteLaterVsProxy <= GOALS.streamFirstByteLaterMs)}`,
      );
    }
  }
  for (const g of gateways) {
    w(
      `  ${g.scenario}: gateway RSS at rest ${g.restRssMb ?? '-'} MB (goal <= ${GOALS.restRssMb}): ${verdict(g.restRssMb === null ? null : g.restRssMb <= GOALS.restRssMb)}; peak ${g.peakRssMb ?? '-'} MB (goal <= ${GOALS.peakRssMb}): ${verdict(g.peakRssMb === null ? null : g.peakRssMb <= GOALS.peakRssMb)}`,
    );
  }
  const failed = rows.filter((r) => r.check !== 'ok' || r.errors > 0);
  for (const r of failed) {
    notes.push(`${r.scenario} c=${r.concurrency} ${r.target}: check ${r.check}; ${r.errors} error(s) ${JSON.stringify(r.statuses)}${r.lastError ? ` last: ${r.lastError}` : ''}`);
  }
  if (notes.length) {
    w('\nNotes:');
    for (const n of notes) w(`  ${n}`);
  }
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the children\n`);
    stopAll().finally(() => process.exit(130));
  });
}

main().catch(async (err) => {
  process.stderr.write(`\nbench failed: ${err?.stack ?? err}\n`);
  await stopAll();
  process.exit(1);
});
