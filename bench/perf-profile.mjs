// Where the CPU goes, in µs per answer, from Linux perf rather than V8's profiler: the gateway
// builds (and the bare proxy) serve one scenario in paired slices as bench/paired.mjs does, each
// run with --perf-basic-prof-only-functions (V8 writes /tmp/perf-<pid>.map, so JIT code has names)
// and sampled by `perf record -e cpu-clock` on every thread; only the samples taken while its own
// slices were measured count. The figures are CPU time in one unit for every target: JIT code, V8's builtins, the
// garbage collector's threads, the kernel's work for the process's syscalls.
//
// Why not --cpu-prof: V8's sampling profiler charges the time of whatever it interrupts to the
// JavaScript frame it finds, and short byte loops come out many times larger than they are (on
// keys-chat it gave usageOfRaw 9.9 µs an answer; perf gives 1.0). It also sees no other thread.
//
//   node bench/perf-profile.mjs --only keys-chat --concurrency 64 [--slices 6] [--seconds 2]
//     [--gateway-dir D]... [--proxy] [--events 23] [--top 30] [--frequency 999] [--area 'native'] [--main-thread]
//
// --area: each target's top symbols of the areas whose name starts so (e.g. 'V8 builtins').
// --main-thread: the areas and symbols of each process's main thread alone (the thread that bounds
// its answers a second), not of every thread.
// --gateway-dir takes what paired.mjs takes: `dir:flags` and `dir@overlay.json` (bench/ablations/).
//
// Needs `perf` (Debian: linux-perf) and perf_event_paranoid <= 2 for one's own processes.
// PERF_PROFILE_KEEP=1 keeps the perf.data files (their folder is printed).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopAll } from './lib/children.mjs';
import { pairedOptions, startPairedTargets } from './lib/paired-targets.mjs';
import { AREAS, areaOf, byArea, countSymbols } from './lib/perf-report.mjs';
import { measureInSlices } from './lib/slices.mjs';

const PERF_MAP = '--perf-basic-prof-only-functions';

function options(argv) {
  const own = { events: 0, top: 30, frequency: 999, area: undefined, mainThread: false };
  const common = pairedOptions(argv, { seconds: 2 }, (arg, value) => {
    if (arg === '--events') own.events = Number(value);
    else if (arg === '--top') own.top = Number(value);
    else if (arg === '--frequency') own.frequency = Number(value);
    else if (arg === '--area') own.area = value;
    else if (arg === '--main-thread') {
      own.mainThread = true;
      return 1;
    } else return 0;
    return 2;
  });
  return { ...common, ...own };
}

/**
 * `perf record` on every thread of `pid`, its sample times on CLOCK_MONOTONIC (process.hrtime's
 * clock): the samples of the measured slices are picked by time afterwards. (Enabling events only
 * during the slices loses the mmap records of JIT code pages V8 maps meanwhile: their samples
 * come out as [unknown].)
 */
async function attachPerf(pid, file, frequency) {
  const child = spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(frequency), '-k', 'CLOCK_MONOTONIC', '-p', String(pid), '-o', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => (stderr += text));
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  // Attached once its file has a header; a second is plenty, and a failure shows at once.
  const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 1000))]);
  if (early) throw new Error(`perf record exited: ${stderr.trim()}`);
  return {
    async stop() {
      child.kill('SIGINT');
      await exited;
    },
  };
}

/** Seconds on CLOCK_MONOTONIC (perf's sample clock, given -k CLOCK_MONOTONIC). */
const monotonicSeconds = () => Number(process.hrtime.bigint()) / 1e9;

/**
 * Samples per symbol inside `windows` ([start, end] seconds), and those of the process's main
 * thread (its task id is the pid). Symbols as perf report prints them: `[k] name` or `[.] name`.
 */
function readSamples(file, pid, windows, mainOnly) {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'tid,time,ip,sym,dso', '--ns'], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+([\d.]+):\s+[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
    if (!m) continue;
    const at = Number(m[2]);
    if (!windows.some(([from, to]) => at >= from && at <= to)) continue;
    lines.push({ tid: Number(m[1]), symbol: `${m[4] === '[kernel.kallsyms]' ? '[k]' : '[.]'} ${m[3]}` });
  }
  const main = lines.filter((l) => l.tid === pid);
  return { symbols: countSymbols(mainOnly ? main : lines), main: main.length };
}

const opts = options(process.argv.slice(2));
const check = spawnSync('perf', ['--version'], { encoding: 'utf8' });
if (check.status !== 0) {
  process.stderr.write('perf-profile: `perf` is not available here (Debian: apt-get install linux-perf)\n');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'perf-profile-'));
const attached = [];
/** The pids of the processes started here, whose perf maps are removed at the end. */
const pids = [];
try {
  const { scenario, targets } = await startPairedTargets({ ...opts, nodeArgs: [PERF_MAP] });
  for (const [i, t] of targets.entries()) {
    pids.push(t.pid);
    t.dist = t.dir ? `${t.dir}/dist/` : undefined;
    t.perfFile = join(work, `${i}.data`);
    t.perf = await attachPerf(t.pid, t.perfFile, opts.frequency);
    t.windows = [];
    attached.push(t.perf);
  }
  await measureInSlices(targets, {
    concurrency: opts.concurrency,
    slices: opts.slices,
    seconds: opts.seconds,
    staggerMs: scenario.staggerMs,
    onMeasure: (t, mark) => {
      if (mark === 'start') t.windows.push([monotonicSeconds(), Infinity]);
      else t.windows.at(-1)[1] = monotonicSeconds();
    },
  });
  for (const t of targets) await t.perf.stop();
  attached.length = 0;

  const usPerSample = 1e6 / opts.frequency;
  const per = (t, samples) => (samples * usPerSample) / t.n;
  for (const t of targets) {
    const { symbols, main } = readSamples(t.perfFile, t.pid, t.windows, opts.mainThread);
    t.symbols = symbols;
    t.main = main;
    t.total = [...symbols.values()].reduce((a, b) => a + b, 0);
    t.areas = byArea(symbols, t.dist);
  }
  const events = opts.events > 0 ? opts.events : 0;
  const w = (s) => process.stdout.write(`${s}\n`);
  w(`${opts.only}, c=${opts.concurrency}, ${opts.slices} slices of ${opts.seconds} s per target; perf cpu-clock at ${opts.frequency} Hz, every thread`);
  w('');
  const col = (s) => String(s).padStart(14);
  w(`${'target'.padEnd(50)}${col('answers')}${col('rps')}${col('us/answer')}${col('main thread')}${events ? col('us/event') : ''}`);
  for (const t of targets)
    w(
      `${t.name.slice(0, 49).padEnd(50)}${col(t.n)}${col((t.n / t.seconds).toFixed(0))}${col(per(t, t.total).toFixed(1))}${col(per(t, t.main).toFixed(1))}${events ? col((per(t, t.total) / events).toFixed(2)) : ''}`,
    );
  w('');
  w(`µs per answer${events ? ` (per event: / ${events})` : ''}${opts.mainThread ? ' on the main thread' : ''}, by area:`);
  w(`${'area'.padEnd(50)}${targets.map((t) => col(t.name.slice(-13))).join('')}`);
  for (const area of AREAS) {
    if (targets.every((t) => t.areas.get(area) === 0)) continue;
    w(`${area.padEnd(50)}${targets.map((t) => col(per(t, t.areas.get(area)).toFixed(1))).join('')}`);
  }
  // Every gateway's top symbols; with --area, every target's top symbols of the areas named so.
  for (const t of targets) {
    if (t.name === 'proxy' && !opts.area) continue;
    const symbols = [...t.symbols].filter(([symbol]) => !opts.area || areaOf(symbol, t.dist).startsWith(opts.area));
    w('');
    w(`${t.name}: top ${opts.top} symbols${opts.area ? ` of "${opts.area}"` : ''}, µs per answer${opts.mainThread ? ' (main thread)' : ''}:`);
    const top = symbols.sort((a, b) => b[1] - a[1]).slice(0, opts.top);
    for (const [symbol, n] of top) w(`${per(t, n).toFixed(2).padStart(8)}  ${(t.dist ? symbol.replace(`file://${t.dist}`, '').replace(t.dist, '') : symbol).slice(0, 140)}`);
  }
} finally {
  for (const p of attached) await p.stop().catch(() => undefined);
  await stopAll();
  // The perf maps V8 wrote for the processes started here (read by perf script above; V8 writes them to /tmp whatever TMPDIR says).
  for (const pid of pids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  if (!process.env.PERF_PROFILE_KEEP) rmSync(work, { recursive: true, force: true });
  else process.stderr.write(`kept ${work}\n`);
}
process.exit(0);
