#!/usr/bin/env node
// Start-up and shutdown of the built gateway as an operator runs it: `npm start` (and
// `node dist/main.js`) with the shipped gateway.yaml, timed from spawn to the first 200 on
// /health, and from SIGTERM to exit. Run after `npm ci` (or `npm run build`).
//
//   node bench/startup.mjs [--runs 5]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib/children.mjs';
import { formatTable } from './lib/table.mjs';

const i = process.argv.indexOf('--runs');
const runs = i >= 0 ? Number(process.argv[i + 1]) : 5;

function freePort() {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user + system) used so far by every process of a process group (Linux /proc; 100 ticks/s). */
function groupCpuSeconds(pgid) {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

async function once(command, args) {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'gw-startup-bench-'));
  const t0 = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, GATEWAY_PORT: String(port), GATEWAY_HOST: '127.0.0.1', GATEWAY_DATA_DIR: data, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let healthy;
  let cpu;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      healthy = performance.now() - t0;
      cpu = groupCpuSeconds(child.pid);
      break;
    }
    if (performance.now() - t0 > 60_000) throw new Error(`${command} did not become healthy`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const t1 = performance.now();
  process.kill(child.pid, 'SIGTERM');
  const code = await exited;
  const stopped = performance.now() - t1;
  rmSync(data, { recursive: true, force: true });
  return { healthy, stopped, code, cpu };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [label, command, args] of [
  ['node dist/main.js', process.execPath, [join(ROOT, 'dist', 'main.js')]],
  ['npm start', 'npm', ['start', '--silent']],
]) {
  const results = [];
  for (let n = 0; n < runs; n++) results.push(await once(command, args));
  rows.push({
    label,
    healthy: median(results.map((r) => r.healthy)),
    max: Math.max(...results.map((r) => r.healthy)),
    cpu: median(results.map((r) => r.cpu)),
    stopped: median(results.map((r) => r.stopped)),
    codes: [...new Set(results.map((r) => r.code))].join(','),
  });
}
console.log(`gateway start-up: node ${process.version}, shipped gateway.yaml, ${runs} runs each (median)\n`);
console.log(
  formatTable(
    [
      { title: 'command', value: (r) => r.label },
      { title: 'spawn -> /health 200 ms', value: (r) => r.healthy, digits: 0 },
      { title: 'max ms', value: (r) => r.max, digits: 0 },
      { title: 'CPU s to healthy', value: (r) => r.cpu, digits: 2 },
      { title: 'SIGTERM -> exit ms', value: (r) => r.stopped, digits: 0 },
      { title: 'exit codes', value: (r) => r.codes },
    ],
    rows,
  ),
);
