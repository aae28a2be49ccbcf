// Where a streamed answer's CPU goes, by stage of the stream path (issue 23): each sample of a
// gateway .cpuprofile is given to the nearest frame on its stack (from the leaf up) that belongs
// to a stage; natives (JSON.parse, writev) count for the stage that called them.
//
//   node bench/lib/profile-stages.mjs <file.cpuprofile> [--results bench/results/latest.json --scenario name] [--events 23]
//
// With --results, only the samples inside the scenario's gateway rows count, and the figures are
// per answer (and per event with --events: the upstream events of one answer).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Stages, in the order they are printed. */
export const STAGES = [
  'socket writes (writev, http chunks)',
  'edge writer (respond.js)',
  'writers (chunk/Messages/Responses)',
  'part union (parts, batches)',
  'parsing and mapping (JSON, mappers)',
  'framing (SSE, passthrough scan)',
  'redaction',
  'usage accounting and metering',
  'upstream read (undici, chunks)',
  'HTTP server (incoming)',
  'request pipeline (per request)',
  'logging',
  'garbage collector',
  'other (node internals, program)',
];

const SOCKET_NATIVES = new Set(['writev', 'writeString', 'writeBuffer', 'writeLatin1String', 'writeUtf8String', 'writevGeneric', 'createWriteWrap']);

/** The stage of one frame, or undefined to look further up the stack. */
function stageOf(frame) {
  const { url, functionName: fn } = frame;
  if (fn === '(garbage collector)') return 'garbage collector';
  if (fn === '(program)') return 'other (node internals, program)';
  if (!url) return SOCKET_NATIVES.has(fn) ? 'socket writes (writev, http chunks)' : undefined;
  if (/sonic-boom|\/pino\/|request-log\.js|fixed-lines\.js|observability\/logger/.test(url)) return 'logging';
  if (url.startsWith('node:_http_outgoing') || url.startsWith('node:internal/stream_base_commons') || url === 'node:net') return undefined;
  if (url.includes('/errors/redact')) return 'redaction';
  if (/sse-parser\.js|\/framing\.js|sse-passthrough\.js|ndjson-parser\.js/.test(url)) return 'framing (SSE, passthrough scan)';
  if (/chunk-reader\.js|stream-mapper\.js|messages-via-chat\.js|\/providers\//.test(url)) return 'parsing and mapping (JSON, mappers)';
  if (/chunk-writer\.js|messages-writer\.js|responses-writer\.js|responses-shapes\.js|stream-answer\.js|anthropic\/shapes\.js|stream-writer\.js/.test(url))
    return 'writers (chunk/Messages/Responses)';
  if (/usage-scan\.js|answer-usage\.js|\/metering\//.test(url)) return 'usage accounting and metering';
  if (url.includes('/stages/upstream-stream.js')) {
    return /^(onData|handOver|take|next|settle|UpstreamChunks|from|finish)$/.test(fn) && !/FramedParts|PassedChunks/.test(fn)
      ? 'upstream read (undici, chunks)'
      : 'part union (parts, batches)';
  }
  if (url.includes('/part-stream.js')) return 'part union (parts, batches)';
  if (url.includes('/kernel/http/respond.js')) return 'edge writer (respond.js)';
  if (url.includes('/node_modules/undici/')) return 'upstream read (undici, chunks)';
  if (url.startsWith('node:_http_server') || url.startsWith('node:_http_incoming') || url.startsWith('node:_http_common')) return 'HTTP server (incoming)';
  if (url.includes('/dist/')) return 'request pipeline (per request)';
  return undefined;
}

/** Self time (µs) per stage over the samples inside `windows` (all samples when none falls inside). */
export function stagesOf(profile, windows) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map();
  const stageOfNode = (id) => {
    if (cache.has(id)) return cache.get(id);
    const node = nodes.get(id);
    let stage = stageOf(node.callFrame);
    if (stage === undefined) {
      const up = parent.get(id);
      stage = up === undefined ? 'other (node internals, program)' : stageOfNode(up);
    }
    cache.set(id, stage);
    return stage;
  };
  const count = (inWindow) => {
    const us = new Map();
    let t = profile.startTime;
    let n = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i];
      const dt = profile.timeDeltas[i + 1] ?? 0;
      if (inWindow && !inWindow(t)) continue;
      const node = nodes.get(profile.samples[i]);
      if (node.callFrame.functionName === '(idle)') continue;
      const stage = stageOfNode(profile.samples[i]);
      us.set(stage, (us.get(stage) ?? 0) + dt);
      n++;
    }
    return { us, n };
  };
  if (windows?.length) {
    const within = (t) => windows.some(([a, b]) => t >= a && t <= b);
    const out = count(within);
    if (out.n > 0) return out.us;
  }
  return count(undefined).us;
}

function main() {
  const args = process.argv.slice(2);
  const file = args[0];
  const opt = (name) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (!file) {
    process.stderr.write('usage: node bench/lib/profile-stages.mjs <file.cpuprofile> [--results latest.json --scenario name] [--events n]\n');
    process.exit(2);
  }
  let windows;
  let requests;
  const results = opt('results');
  if (results) {
    const rows = JSON.parse(readFileSync(results, 'utf8')).rows.filter((r) => r.target === 'gateway' && (!opt('scenario') || r.scenario === opt('scenario')));
    windows = rows.flatMap((r) => r.monotonicWindowsUs);
    requests = rows.reduce((s, r) => s + r.requests, 0);
  }
  const events = Number(opt('events') ?? 0);
  const us = stagesOf(JSON.parse(readFileSync(file, 'utf8')), windows);
  const total = [...us.values()].reduce((a, b) => a + b, 0);
  const w = (s) => process.stdout.write(`${s}\n`);
  w(`${file}: ${(total / 1000).toFixed(0)} ms of CPU${requests ? `, ${requests} answers: ${(total / requests).toFixed(1)} us per answer` : ''}`);
  w(`${'stage'.padEnd(40)} ${'share'.padStart(6)} ${requests ? 'us/answer'.padStart(10) : ''} ${requests && events ? 'us/event'.padStart(9) : ''}`);
  for (const stage of STAGES) {
    const v = us.get(stage) ?? 0;
    w(
      `${stage.padEnd(40)} ${`${((100 * v) / total).toFixed(1)}%`.padStart(6)} ${requests ? (v / requests).toFixed(1).padStart(10) : ''} ${requests && events ? (v / requests / events).toFixed(2).padStart(9) : ''}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
