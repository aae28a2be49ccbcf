#!/usr/bin/env node
// The gateway as a cluster (server.workers: 2) against one process (server.workers: 1), with the
// bare proxy measured in the same run: non-streamed openai chat through the full default
// pipelines, closed-loop load at one concurrency. Prints rps, latency, each row's ratio to the
// bare proxy and to one worker, and the gateway's CPU time per request (primary and workers).
//
//   npm run bench:workers -- [--seconds 5] [--warmup 2] [--concurrency 64] [--workers 2] [--scenario openai-chat]
//
// --scenario: any bench/scenarios/<name>.mjs whose request the fake answers (e.g.
// openai-chat-stream-paced at --concurrency 300 for slow streams; its config and stagger apply);
// the proxy gets the scenario's upstream request. The table adds time to first byte.
//
// On a machine with few cores the load generator competes with the workers: the ratio to one
// worker is then bounded by the cores left over; read it with the CPU columns.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, startProxy, stopAll } from './lib/children.mjs';
import { runCell } from './lib/load.mjs';
import { cpuBetween, cpuSnapshot } from './lib/cpu.mjs';
import { formatTable } from './lib/table.mjs';

function text(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const scenarioName = text('scenario', 'openai-chat');
const scenarioFile = join(ROOT, 'bench', 'scenarios', `${scenarioName}.mjs`);
const scenario = (await import(pathToFileURL(scenarioFile).href)).default;

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const measureMs = option('seconds', 5) * 1000;
const warmupMs = option('warmup', 2) * 1000;
const concurrency = option('concurrency', 64);
const many = option('workers', 2);
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';

/** The pids of a process's children (the workers of a cluster primary). */
function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function measure(label, url, pids, setup, target) {
  const request = target === 'proxy' ? (setup.upstreamRequest ?? setup.request) : setup.request;
  const result = await runCell({ origin: url, request, concurrency, warmupMs, measureMs, staggerMs: scenario.staggerMs, onMeasure: () => cpuSnapshot(pids) });
  const verdict = result.sample ? (setup.expect ? setup.expect(result.sample, target) : result.sample.status === 200 || `status ${result.sample.status}`) : 'no answer';
  if (verdict !== true) throw new Error(`${label}: ${verdict}`);
  const cpu = cpuBetween(result.marks.start, result.marks.end);
  const gatewaySeconds = Object.entries(cpu.procs)
    .filter(([name]) => name.startsWith('gw'))
    .reduce((sum, [, p]) => sum + p.seconds, 0);
  return {
    label,
    ...result,
    cpuMsPerRequest: result.requests ? (1000 * gatewaySeconds) / result.requests : null,
    cpuPct: Object.values(cpu.procs).reduce((s, p) => s + (p.pct ?? 0), 0),
  };
}

async function main() {
  const fake = await startFake([scenarioFile]);
  const proxy = await startProxy(fake.url);
  const setup = await scenario.setup({ fakeUrl: fake.url });
  const rows = [];
  try {
    rows.push(await measure('bare proxy', proxy.url, { proxy: proxy.pid }, setup, 'proxy'));
    for (const workers of [1, many]) {
      const config = deepMerge({ server: { workers }, logging: { level: logLevel }, providers: { openai: { baseUrl: `${fake.url}/v1` } } }, setup.gatewayConfig);
      const gw = await startGateway(config, { label: `workers-${workers}` });
      const pids = { gw: gw.pid };
      for (const [i, pid] of childPids(gw.pid).entries()) pids[`gw-worker-${i}`] = pid;
      try {
        if (setup.afterStart) await setup.afterStart({ gatewayUrl: gw.url });
        rows.push(await measure(`gateway, ${workers} worker${workers > 1 ? 's' : ''}`, gw.url, pids, setup, 'gateway'));
      } finally {
        await gw.stop();
      }
    }
  } finally {
    await stopAll();
  }
  const bare = rows[0];
  const one = rows[1];
  console.log(
    `gateway workers bench: node ${process.version}, ${cpus().length} CPU(s), ${scenarioName}, concurrency ${concurrency}, ${warmupMs / 1000}s warm-up + ${measureMs / 1000}s, logging.level ${logLevel}\n`,
  );
  console.log(
    formatTable(
      [
        { title: 'target', value: (r) => r.label },
        { title: 'rps', value: (r) => r.rps, digits: 0 },
        { title: 'p50 ms', value: (r) => r.latency.p50, digits: 2 },
        { title: 'p99 ms', value: (r) => r.latency.p99, digits: 2 },
        { title: 'ttfb p50', value: (r) => r.ttfb.p50, digits: 2 },
        { title: 'ttfb p99', value: (r) => r.ttfb.p99, digits: 2 },
        { title: 'x bare', value: (r) => r.rps / bare.rps, digits: 2 },
        { title: 'x 1 worker', value: (r) => (r === bare ? null : r.rps / one.rps), digits: 2 },
        { title: 'CPU % (target)', value: (r) => r.cpuPct, digits: 0 },
        { title: 'gw CPU ms/req', value: (r) => r.cpuMsPerRequest, digits: 3 },
        { title: 'errors', value: (r) => r.errors, digits: 0 },
      ],
      rows,
    ),
  );
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function deepMerge(base, extra) {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra ?? {})) out[key] = isObject(value) && isObject(out[key]) ? deepMerge(out[key], value) : value;
  return out;
}

main().catch(async (err) => {
  console.error(err);
  await stopAll();
  process.exit(1);
});
