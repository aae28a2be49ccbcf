// Summarizes a V8 .cpuprofile (node --cpu-prof): where the CPU went, by function and by package.
// CLI: node bench/lib/profile-summary.mjs <file.cpuprofile> [--top 25]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const META = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** Where a frame belongs: an npm package, a gateway file (dist/...), a node internal area, or native/meta. */
export function categoryOf(frame) {
  const { url, functionName } = frame;
  if (META.has(functionName)) return functionName;
  if (!url) return '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0)
    return `gateway ${
      url
        .slice(dist + 6)
        .split('/')
        .slice(0, -1)
        .join('/') || '.'
    }`;
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return `node:${parts[0] === 'internal' ? parts.slice(0, parts.length > 2 ? 2 : 1).join('/') : parts[0]}`;
  }
  if (url.includes('/bench/')) return 'bench preload';
  return url;
}

function shortUrl(url) {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + 14);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `dist/${url.slice(dist + 6)}`;
  return url.replace(/^file:\/\//, '');
}

function frameKey(frame) {
  return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

/**
 * Self and inclusive time (ms) per function and per category; idle excluded from the total.
 * windows: optional [[startUs, endUs], ...] on the monotonic clock (process.hrtime.bigint() / 1000n,
 * which is the clock V8 stamps samples with on Linux): only samples inside them count, so start-up
 * and idle gaps between rows stay out. If no sample falls inside, every sample counts (windowed: false).
 */
export function summarizeProfile(profile, windows) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const { samples, timeDeltas } = profile;
  const collect = (inWindow) => {
    const selfUs = new Map();
    let t = profile.startTime;
    let counted = 0;
    for (let i = 0; i < samples.length; i++) {
      t += timeDeltas[i];
      if (inWindow && !inWindow(t)) continue;
      const dt = timeDeltas[i + 1] ?? 0;
      selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
      counted++;
    }
    return counted ? selfUs : undefined;
  };
  const inWindow = windows?.length ? (t) => windows.some(([a, b]) => t >= a && t <= b) : undefined;
  let selfUs = inWindow ? collect(inWindow) : undefined;
  const windowed = selfUs !== undefined;
  selfUs ??= collect();
  const fn = new Map(); // key -> { self, total }
  const cat = new Map();
  const bump = (map, key, field, us) => {
    let e = map.get(key);
    if (!e) map.set(key, (e = { self: 0, total: 0 }));
    e[field] += us;
  };
  // Inclusive time: a node's self time counts once for every distinct function/category on its stack.
  const fnOnStack = new Map();
  const catOnStack = new Map();
  let busyUs = 0;
  let idleUs = 0;
  const root = profile.nodes[0];
  const stack = [{ node: root, phase: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const { node } = top;
    const f = frameKey(node.callFrame);
    const c = categoryOf(node.callFrame);
    if (top.phase === 0) {
      top.phase = 1;
      fnOnStack.set(f, (fnOnStack.get(f) ?? 0) + 1);
      catOnStack.set(c, (catOnStack.get(c) ?? 0) + 1);
      const self = selfUs.get(node.id) ?? 0;
      if (node.callFrame.functionName === '(idle)') idleUs += self;
      else busyUs += self;
      if (self && node.callFrame.functionName !== '(idle)') {
        bump(fn, f, 'self', self);
        bump(cat, c, 'self', self);
        for (const k of fnOnStack.keys()) bump(fn, k, 'total', self);
        for (const k of catOnStack.keys()) bump(cat, k, 'total', self);
      }
      for (const id of node.children ?? []) stack.push({ node: nodes.get(id), phase: 0 });
      continue;
    }
    // All its children (pushed above it) are done: leave the node.
    stack.pop();
    const fc = fnOnStack.get(f) - 1;
    if (fc) fnOnStack.set(f, fc);
    else fnOnStack.delete(f);
    const cc = catOnStack.get(c) - 1;
    if (cc) catOnStack.set(c, cc);
    else catOnStack.delete(c);
  }
  const ms = (us) => us / 1000;
  const list = (map) =>
    [...map.entries()].map(([name, e]) => ({ name, selfMs: ms(e.self), totalMs: ms(e.total), selfPct: (100 * e.self) / busyUs, totalPct: (100 * e.total) / busyUs }));
  return { windowed, busyMs: ms(busyUs), idleMs: ms(idleUs), functions: list(fn), categories: list(cat) };
}

function pct(n) {
  return `${n.toFixed(1).padStart(5)}%`;
}

/**
 * A printable report of the top items. With `requests` (answers served during the windows),
 * each line also gives microseconds per request: self and inclusive.
 */
export function formatProfile(summary, top = 25, requests = 0) {
  const out = [];
  const scope = summary.windowed ? 'during the measured rows' : 'over the whole run, start-up included';
  const perReq = requests > 0;
  const us = (ms) => ((ms * 1000) / requests).toFixed(1).padStart(7);
  out.push(
    `CPU busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms (${scope})${perReq ? `; ${requests} requests: ${((summary.busyMs * 1000) / requests).toFixed(0)} us of CPU per request` : ''}`,
  );
  const head = perReq ? '   self  incl.  self us/req  incl. us/req  ' : '   self  incl.  ';
  const line = (e) => `${pct(e.selfPct)} ${pct(e.totalPct)}  ${perReq ? `${us(e.selfMs).padStart(11)}  ${us(e.totalMs).padStart(12)}  ` : ''}${e.name}`;
  out.push('', `Top ${top} functions by self time:`, `${head}function`);
  for (const f of [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) out.push(line(f));
  out.push('', 'By package / area (self time, and time with that area anywhere on the stack):', `${head}area`);
  for (const c of [...summary.categories].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) out.push(line(c));
  out.push('', `Top ${top} gateway functions (dist/) by inclusive time:`, `${head}function`);
  const own = summary.functions.filter((f) => f.name.includes(' dist/'));
  for (const f of own.sort((a, b) => b.totalMs - a.totalMs).slice(0, top)) out.push(line(f));
  return out.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/lib/profile-summary.mjs <file.cpuprofile> [--top N]\n');
    process.exit(2);
  }
  const i = process.argv.indexOf('--top');
  const top = i > 0 ? Number(process.argv[i + 1]) : 25;
  process.stdout.write(`${formatProfile(summarizeProfile(JSON.parse(readFileSync(file, 'utf8'))), top)}\n`);
}
