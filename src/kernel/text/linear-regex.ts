import { createRequire } from 'node:module';
import { parseRegex, RegexSyntaxError, type RegexNode } from './regex-syntax.js';

/**
 * Linear-time matching for patterns a caller sends (RE2 through the re2-wasm package): no
 * pattern can stall the event loop. RE2 has no backreferences or lookaround; such patterns,
 * and patterns over the size limits, are refused when compiled.
 *
 * re2-wasm's heap is a fixed 16 MB that its objects never give back on their own (no finalizers)
 * and that aborts the module when full, so this wrapper owns every RE2 object it makes: a failed
 * compile is freed at once, compiled programs live in a small pool (the least recently used is
 * freed), and after a budget of work (subject length x pattern size, which bounds the DFA cache
 * RE2 grows while matching) every kept program is freed and recompiled on its next use.
 */

/** The longest pattern a caller may send, in characters. */
export const MAX_PATTERN_LENGTH = 512;
/** The largest pattern, in atoms once counted repetitions are expanded (`a{100}` is 100). */
export const MAX_PATTERN_SIZE = 256;
/** Values longer than this (in characters) never match a linear pattern. */
export const MAX_SUBJECT_LENGTH = 4096;

const POOL_SIZE = 32;
const WORK_BUDGET = 1 << 20;

interface WrappedRE2 {
  ok(): boolean;
  error(): string;
  match(input: string, start: number, getCapturingGroups: boolean): { index: number };
  delete(): void;
}
interface Re2Module {
  WrappedRE2: new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean) => WrappedRE2;
}

const requireHere = createRequire(import.meta.url);
const MODULE_ID = 're2-wasm/build/wasm/re2.js';
let engine: Re2Module | undefined;

/** Loads the WASM module on first use (it costs tens of ms; most gateways never need it). */
function re2(): Re2Module {
  engine ??= requireHere(MODULE_ID) as Re2Module;
  return engine;
}

/** After an abort of the WASM module (its heap exhausted), a fresh instance is loaded. */
function resetEngine(): void {
  pool.clear();
  work = 0;
  const id = requireHere.resolve(MODULE_ID);
  delete requireHere.cache[id];
  engine = undefined;
}

function isWasmAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'RuntimeError';
}

const pool = new Map<string, WrappedRE2>();
let work = 0;

function freePool(): void {
  for (const handle of pool.values()) handle.delete();
  pool.clear();
  work = 0;
}

/** Compiles for RE2; returns the handle or the RE2 error (the failed handle is freed). */
function compileHandle(translated: string, flags: string): WrappedRE2 | string {
  const handle = new (re2().WrappedRE2)(translated, flags.includes('i'), flags.includes('m'), flags.includes('s'));
  if (handle.ok()) return handle;
  const error = handle.error();
  handle.delete();
  return error;
}

/** Keeps `handle` as the most recently used, freeing the least recently used beyond the pool size. */
function keep(key: string, handle: WrappedRE2): void {
  const previous = pool.get(key);
  pool.delete(key);
  if (previous && previous !== handle) previous.delete();
  if (pool.size >= POOL_SIZE) {
    const [oldKey, oldest] = pool.entries().next().value!;
    pool.delete(oldKey);
    oldest.delete();
  }
  pool.set(key, handle);
}

function pooled(key: string, translated: string, flags: string): WrappedRE2 {
  let handle = pool.get(key);
  if (!handle) {
    const compiled = compileHandle(translated, flags);
    if (typeof compiled === 'string') throw new Error(`RE2 refused a pattern it accepted before: ${compiled}`);
    handle = compiled;
  }
  keep(key, handle);
  return handle;
}

/** JavaScript syntax that RE2 spells otherwise: `\uXXXX`, `\u{X}`, `\cX`, `(?<name>`. */
function translate(source: string): string {
  let out = '';
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const n = source[i + 1]!;
      const rest = source.slice(i + 2);
      let m: RegExpExecArray | null;
      if (n === 'u' && (m = /^\{([0-9A-Fa-f]{1,6})\}|^([0-9A-Fa-f]{4})/.exec(rest))) {
        out += `\\x{${m[1] ?? m[2]}}`;
        i += 2 + m[0].length;
      } else if (n === 'c' && /^[A-Za-z]/.test(rest)) {
        out += `\\x{${(rest.charCodeAt(0) % 32).toString(16)}}`;
        i += 3;
      } else {
        out += c + n;
        i += 2;
      }
      continue;
    }
    if (source.startsWith('(?<', i) && source[i + 3] !== '=' && source[i + 3] !== '!') {
      out += '(?P<';
      i += 3;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The size of a pattern with counted repetitions expanded (RE2 compiles `a{100}` to 100 copies). */
function sizeOf(node: RegexNode): number {
  switch (node.type) {
    case 'group':
    case 'look':
      return 1 + sizeOf(node.body);
    case 'repeat':
      return 1 + sizeOf(node.body) * Math.max(1, Number.isFinite(node.max) ? node.max : node.min + 1);
    case 'alt':
      return node.branches.reduce((n, b) => n + sizeOf(b), 1);
    case 'seq':
      return node.items.reduce((n, b) => n + sizeOf(b), 0);
    default:
      return 1;
  }
}

function* nodes(node: RegexNode): Generator<RegexNode> {
  yield node;
  if (node.type === 'group' || node.type === 'look' || node.type === 'repeat') yield* nodes(node.body);
  else if (node.type === 'alt') for (const b of node.branches) yield* nodes(b);
  else if (node.type === 'seq') for (const b of node.items) yield* nodes(b);
}

/** A compiled linear-time pattern; `test` is the only operation callers' patterns need. */
export class LinearRegex {
  /** The pool's key: flags and translated source. */
  readonly key: string;

  /** Use compileLinearRegex. */
  constructor(
    readonly source: string,
    readonly flags: string,
    private readonly translated: string,
    private readonly size: number,
  ) {
    this.key = `${flags}/${translated}`;
  }

  test(subject: string): boolean {
    if (subject.length > MAX_SUBJECT_LENGTH) return false;
    let found: boolean;
    try {
      found = pooled(this.key, this.translated, this.flags).match(subject, 0, false).index >= 0;
    } catch (err) {
      if (isWasmAbort(err)) resetEngine();
      throw err;
    }
    work += (subject.length + 1) * this.size;
    if (work > WORK_BUDGET) freePool();
    return found;
  }
}

/** Why RE2 cannot take this pattern, or undefined; `flags` may hold i, m and s. */
export function linearPatternProblem(source: string, flags = ''): string | undefined {
  const compiled = compileOrProblem(source, flags);
  return typeof compiled === 'string' ? compiled : undefined;
}

/** Compiles a caller's pattern for linear-time matching; throws Error(problem) when it cannot. */
export function compileLinearRegex(source: string, flags = ''): LinearRegex {
  const compiled = compileOrProblem(source, flags);
  if (typeof compiled === 'string') throw new Error(compiled);
  return compiled;
}

function compileOrProblem(source: string, flags: string): LinearRegex | string {
  if (/[^ims]/.test(flags)) return `flags may only be i, m and s (got "${flags}")`;
  if (source.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  let tree: RegexNode;
  try {
    tree = parseRegex(source, flags);
  } catch (err) {
    if (err instanceof RegexSyntaxError) return `is not a valid regular expression: ${err.message}`;
    throw err;
  }
  for (const node of nodes(tree)) {
    if (node.type === 'backref') return 'uses a backreference, which the linear-time engine (RE2) does not support';
    if (node.type === 'look') return 'uses lookahead or lookbehind, which the linear-time engine (RE2) does not support';
  }
  const size = sizeOf(tree);
  if (size > MAX_PATTERN_SIZE) return `is too large (${size} atoms once repetitions are counted; at most ${MAX_PATTERN_SIZE})`;
  const translated = `${flags.includes('m') ? '(?m)' : ''}${translate(source)}`;
  let handle: WrappedRE2 | string;
  try {
    handle = compileHandle(translated, flags);
  } catch (err) {
    if (isWasmAbort(err)) resetEngine();
    throw err;
  }
  if (typeof handle === 'string') return `is not a pattern the linear-time engine (RE2) accepts: ${handle}`;
  const regex = new LinearRegex(source, flags, translated, size);
  keep(regex.key, handle);
  return regex;
}
