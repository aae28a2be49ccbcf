// Paired comparison of gateway builds (and the bare proxy) under the same machine load: every
// target serves at once against one fake upstream, the load switches between them in short
// slices (order alternating), and each target's CPU per answer is summed over its own slices.
// On a shared machine this is steadier than two bench runs minutes apart.
//
//   node bench/paired.mjs --only openai-chat --concurrency 64 --slices 6 \
//     --gateway-dir /tmp/main-checkout --gateway-dir . --proxy
//
// --gateway-dir may be given several times (each: a checkout with dist/main.js built; `dir:flags`
// adds node flags, `+` for spaces, e.g. `.:--heap-growing-percent=0`; `dir@file.json` merges a
// config overlay into that gateway's config, e.g. `.@bench/ablations/no-meter.json`). Default: this checkout.
import { stopAll } from './lib/children.mjs';
import { pairedOptions, startPairedTargets } from './lib/paired-targets.mjs';
import { measureInSlices, pairedDifference } from './lib/slices.mjs';

const opts = pairedOptions(process.argv.slice(2), { seconds: 1.5 });
try {
  const { scenario, targets } = await startPairedTargets(opts);
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
