// Paired measurement on a shared machine: every target warmed up, then the load switched
// between them in slices (order alternating on each slice), so each sees the same machine; a
// target sums its own slices' answers, seconds and CPU (of its process, `pid`, and of its main
// thread alone: the thread a one-process server's rate is bound by), and keeps each slice's p50
// latency and time to first byte.
import { cpuBetween, cpuSnapshot } from './cpu.mjs';
import { runCell } from './load.mjs';

/**
 * targets: [{ url, pid, request }]; each gains { cpu (s), mainCpu (s), n (answers), seconds, p50: [],
 * ttfb: [], cpuPerAnswer: [] and mainCpuPerAnswer: [] (µs of CPU per answer in each slice, of the
 * process and of its main thread, for paired differences: see pairedDifference) }.
 * Options: concurrency, slices, seconds (per slice and target), staggerMs (the scenario's);
 * onMeasure(target, 'start' | 'end'): called around each measured slice of a target.
 */
export async function measureInSlices(targets, { concurrency, slices, seconds, staggerMs, onMeasure }) {
  for (const t of targets) Object.assign(t, { cpu: 0, mainCpu: 0, n: 0, seconds: 0, p50: [], ttfb: [], cpuPerAnswer: [], mainCpuPerAnswer: [] });
  for (const t of targets) await runCell({ origin: t.url, request: t.request, concurrency, warmupMs: 1500, measureMs: 500, staggerMs });
  for (let i = 0; i < slices; i++) {
    for (const t of i % 2 ? [...targets].reverse() : targets) {
      let a;
      let b;
      const cell = await runCell({
        origin: t.url,
        request: t.request,
        concurrency,
        warmupMs: 200,
        measureMs: seconds * 1000,
        staggerMs,
        onMeasure: (mark) => {
          // The main thread's task has the process's own id.
          const pids = { p: t.pid, main: `${t.pid}/task/${t.pid}` };
          if (mark === 'start') {
            onMeasure?.(t, mark);
            a = cpuSnapshot(pids);
          } else {
            b = cpuSnapshot(pids);
            onMeasure?.(t, mark);
          }
        },
      });
      const { procs } = cpuBetween(a, b);
      const cpu = procs.p.seconds;
      const main = procs.main.seconds;
      t.cpu += cpu;
      t.mainCpu += main;
      t.cpuPerAnswer.push(cell.requests ? (cpu * 1e6) / cell.requests : NaN);
      t.mainCpuPerAnswer.push(cell.requests ? (main * 1e6) / cell.requests : NaN);
      t.n += cell.requests;
      t.seconds += cell.seconds;
      t.p50.push(cell.latency.p50);
      t.ttfb.push(cell.ttfb.p50);
    }
  }
  return targets;
}

/** Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (beyond: 1.96). */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056,
  2.052, 2.048, 2.045, 2.042,
];

/**
 * The mean of `b - a` over slices measured side by side (slice i of one target next to slice i
 * of the other, under the same machine load), with its 95 % confidence half-width: a difference
 * whose interval holds 0 is not told apart from the machine's noise.
 */
export function pairedDifference(a, b) {
  const d = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (Number.isFinite(a[i]) && Number.isFinite(b[i])) d.push(b[i] - a[i]);
  if (d.length < 2) return { mean: d[0] ?? NaN, halfWidth: NaN, n: d.length };
  const mean = d.reduce((x, y) => x + y, 0) / d.length;
  const variance = d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1);
  const t = T95[d.length - 2] ?? 1.96;
  return { mean, halfWidth: t * Math.sqrt(variance / d.length), n: d.length };
}
