// Paired measurement on a shared machine: every target warmed up, then the load switched
// between them in slices (order alternating on each slice), so each sees the same machine; a
// target sums its own slices' answers, seconds and CPU (of its process, `pid`), and keeps each
// slice's p50 latency and time to first byte.
import { cpuBetween, cpuSnapshot } from './cpu.mjs';
import { runCell } from './load.mjs';

/**
 * targets: [{ url, pid, request }]; each gains { cpu (s), n (answers), seconds, p50: [], ttfb: [] }.
 * Options: concurrency, slices, seconds (per slice and target), staggerMs (the scenario's).
 */
export async function measureInSlices(targets, { concurrency, slices, seconds, staggerMs }) {
  for (const t of targets) Object.assign(t, { cpu: 0, n: 0, seconds: 0, p50: [], ttfb: [] });
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
          if (mark === 'start') a = cpuSnapshot({ p: t.pid });
          else b = cpuSnapshot({ p: t.pid });
        },
      });
      t.cpu += cpuBetween(a, b).procs.p.seconds;
      t.n += cell.requests;
      t.seconds += cell.seconds;
      t.p50.push(cell.latency.p50);
      t.ttfb.push(cell.ttfb.p50);
    }
  }
  return targets;
}
