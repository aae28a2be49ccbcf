// Samples of `perf record` on a node process run with --perf-basic-prof-only-functions, per
// symbol and per area (the gateway's own
// code by folder, undici, node's JavaScript, V8's builtins, the garbage collector, the compiler,
// the kernel...). perf samples the CPU clock of every thread of the process at a fixed rate,
// whatever the thread runs: JIT code, natives and the kernel's work for its syscalls alike, so a
// figure here is CPU time, in the same units for the gateway and the bare proxy.

/** Areas, in the order they are printed. */
export const AREAS = [
  'kernel (syscalls, TCP)',
  'gateway: kernel',
  'gateway: contract',
  'gateway: stages',
  'gateway: features/models',
  'gateway: features/governance',
  'gateway: features/auth',
  'gateway: features (other)',
  'gateway: other',
  'undici (JS)',
  'node (JS)',
  'other JS',
  'V8 builtins: promises, async functions',
  'V8 builtins: property access (ICs)',
  'V8 builtins: other',
  'garbage collector',
  'V8 compiler',
  'SQLite',
  'libc (malloc, memcpy)',
  'native: other (node, libuv, llhttp, V8 runtime)',
];

const GATEWAY_FOLDERS = [
  ['kernel/', 'gateway: kernel'],
  ['contract/', 'gateway: contract'],
  ['stages/', 'gateway: stages'],
  ['features/models/', 'gateway: features/models'],
  ['features/governance/', 'gateway: features/governance'],
  ['features/auth/', 'gateway: features/auth'],
  ['features/', 'gateway: features (other)'],
];

/**
 * The area of one symbol as perf prints it (`[k] name` for the kernel, `[.] name` for user space;
 * JIT code as `JS:<tier>name url:line:col` from the perf map). `distDir`: the gateway's dist/
 * folder as it appears in script URLs (undefined for a process that is not the gateway).
 */
export function areaOf(symbol, distDir) {
  if (symbol.startsWith('[k]')) return 'kernel (syscalls, TCP)';
  const name = symbol.replace(/^\[\.\]\s*/, '');
  if (name.startsWith('JS:')) {
    const at = distDir ? name.indexOf(distDir) : -1;
    if (at >= 0) {
      const rel = name.slice(at + distDir.length);
      for (const [prefix, area] of GATEWAY_FOLDERS) if (rel.startsWith(prefix)) return area;
      return 'gateway: other';
    }
    if (name.includes('/node_modules/undici/') || name.includes('wasm')) return 'undici (JS)';
    if (/\snode:/.test(name)) return 'node (JS)';
    return 'other JS';
  }
  if (/^Builtins_/.test(name)) {
    if (/Promise|Generator|Microtask|Async|Await/.test(name)) return 'V8 builtins: promises, async functions';
    if (/IC(_|Trampoline|$)|ICTrampoline|LoadIC|StoreIC|HasIC|GetProperty|SetProperty|DefineKeyed|CreateDataProperty/.test(name)) return 'V8 builtins: property access (ICs)';
    return 'V8 builtins: other';
  }
  if (/v8::internal::(compiler|maglev|Maglev|Turbofan|Pipeline|OptimizingCompile|Compiler)/.test(name)) return 'V8 compiler';
  if (/Scaveng|Marking|Marker|Sweep|Heap::|HeapObject|Evacuat|MemoryAllocator|GCTracer|MemoryChunk|Compactor|v8::internal::GC/.test(name)) return 'garbage collector';
  if (/^sqlite3|sqlite3_/.test(name)) return 'SQLite';
  if (/^(__)?(mem|str)[a-z]*(_|$)|malloc|^_?int_free|^free$|cfree|unlink_chunk|^_int_|tcache|arena/.test(name)) return 'libc (malloc, memcpy)';
  return 'native: other (node, libuv, llhttp, V8 runtime)';
}

/** Samples per symbol of sample lines ({ symbol }); a JIT tier mark (`JS:*name`, `JS:~name`) is dropped, so tiers of one function add up. */
export function countSymbols(lines) {
  const out = new Map();
  for (const { symbol: raw } of lines) {
    const symbol = raw.replace(/^(\[\.\]\s*JS:)[*~^+-]/, '$1');
    out.set(symbol, (out.get(symbol) ?? 0) + 1);
  }
  return out;
}

/** Samples per area (AREAS order) of one report. */
export function byArea(samples, distDir) {
  const areas = new Map(AREAS.map((a) => [a, 0]));
  for (const [symbol, n] of samples) {
    const area = areaOf(symbol, distDir);
    areas.set(area, areas.get(area) + n);
  }
  return areas;
}
