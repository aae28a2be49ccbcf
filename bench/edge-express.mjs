// The figure behind the README's "the HTTP edge is node:http, not express": the same route (read
// a JSON body, answer a small JSON) served by node:http with a Map route lookup and by express,
// in one run, the load switched between them in slices (order alternating) so both see the same
// machine. Prints answers per second and CPU microseconds per answer of each server process.
//
//   node bench/edge-express.mjs [--concurrency 64] [--slices 6] [--seconds 1.5]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { measureInSlices } from './lib/slices.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const concurrency = arg('--concurrency', 64);
const slices = arg('--slices', 6);
const seconds = arg('--seconds', 1.5);

function start(kind) {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'lib', 'edge-server.mjs'), kind], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
      const m = /READY (\d+)/.exec(text);
      if (m) resolve({ kind, child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`${kind} edge exited with ${code}`)));
  });
}

const request = {
  method: 'POST',
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json' },
  body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
};
const targets = [await start('http'), await start('express')];
try {
  await measureInSlices(
    targets.map((t) => Object.assign(t, { pid: t.child.pid, request })),
    { concurrency, slices, seconds },
  );
  process.stdout.write(`edge: POST /v1/chat/completions (read the JSON body, answer JSON), c=${concurrency}, ${slices} slices of ${seconds} s each\n`);
  process.stdout.write('| edge | answers/s | CPU µs per answer |\n|---|---|---|\n');
  for (const t of targets)
    process.stdout.write(`| ${t.kind === 'http' ? 'node:http + Map lookup' : 'express'} | ${(t.n / t.seconds).toFixed(0)} | ${((t.cpu * 1e6) / t.n).toFixed(1)} |\n`);
  const [http, exp] = targets;
  process.stdout.write(
    `express: ${((exp.cpu / exp.n - http.cpu / http.n) * 1e6).toFixed(1)} µs more CPU per answer, ${(exp.n / exp.seconds / (http.n / http.seconds)).toFixed(2)} of node:http's answers per second\n`,
  );
} finally {
  for (const t of targets) t.child.kill('SIGTERM');
}
process.exit(0);
