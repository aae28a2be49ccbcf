import { ANY, normalize, overlaps, parseRegex, RegexSyntaxError, type Ranges, type RegexNode } from './regex-syntax.js';

/**
 * Finds the shapes that make a backtracking engine (RegExp) take exponential or high-polynomial
 * time, in a pattern parsed by regex-syntax.ts. Conservative: a repeat that runs many times
 * (more than MANY, or unbounded) may not hold another variable-count repeat, an alternation
 * whose branches can start alike (or match empty), or a backreference. Patterns such as
 * `(a+)+`, `(a*)*`, `(a|a)*`, `(a|ab)*`, `(\w+\s?)*`, `(.*,){20}` and `((a)\2)+` are caught.
 */

/** A repeat with a larger upper bound than this counts as "many". */
const MANY = 10;

interface First {
  ranges: Ranges;
  nullable: boolean;
}

function union(a: Ranges, b: Ranges): Ranges {
  return normalize([...a, ...b]);
}

/** The characters a match of `node` can start with, and whether it can match the empty string. */
function first(node: RegexNode): First {
  switch (node.type) {
    case 'chars':
      return { ranges: node.ranges, nullable: false };
    case 'assert':
    case 'look':
      return { ranges: [], nullable: true };
    case 'backref':
      return { ranges: ANY, nullable: true };
    case 'group':
      return first(node.body);
    case 'repeat': {
      const f = first(node.body);
      return { ranges: f.ranges, nullable: f.nullable || node.min === 0 };
    }
    case 'alt': {
      let ranges: Ranges = [];
      let nullable = false;
      for (const b of node.branches) {
        const f = first(b);
        ranges = union(ranges, f.ranges);
        nullable ||= f.nullable;
      }
      return { ranges, nullable };
    }
    case 'seq': {
      let ranges: Ranges = [];
      for (const item of node.items) {
        const f = first(item);
        ranges = union(ranges, f.ranges);
        if (!f.nullable) return { ranges, nullable: false };
      }
      return { ranges, nullable: true };
    }
  }
}

/** Each node below `node` (itself included), lookaround bodies included. */
function* walk(node: RegexNode): Generator<RegexNode> {
  yield node;
  switch (node.type) {
    case 'group':
    case 'look':
    case 'repeat':
      yield* walk(node.body);
      break;
    case 'alt':
      for (const b of node.branches) yield* walk(b);
      break;
    case 'seq':
      for (const i of node.items) yield* walk(i);
      break;
  }
}

/** The node with groups and one-item sequences unwrapped. */
function unwrap(node: RegexNode): RegexNode {
  while (node.type === 'group' || (node.type === 'seq' && node.items.length === 1)) node = node.type === 'group' ? node.body : node.items[0]!;
  return node;
}

function ambiguousAlternation(node: RegexNode): boolean {
  const body = unwrap(node);
  if (body.type !== 'alt') return false;
  const firsts = body.branches.map(first);
  for (let i = 0; i < firsts.length; i++) {
    if (firsts[i]!.nullable) return true;
    for (let j = i + 1; j < firsts.length; j++) if (overlaps(firsts[i]!.ranges, firsts[j]!.ranges)) return true;
  }
  return false;
}

/** Why the parsed pattern can backtrack catastrophically, or undefined when its shape is safe. */
export function catastrophicShape(tree: RegexNode): string | undefined {
  for (const node of walk(tree)) {
    if (node.type !== 'repeat' || node.max <= MANY) continue;
    for (const inner of walk(node.body)) {
      if (inner.type === 'repeat' && inner.max > inner.min) return 'a repeated group holds another quantifier (nested quantifiers such as (a+)+ backtrack exponentially)';
      if (inner.type === 'backref') return 'a backreference under a quantifier';
    }
    if (ambiguousAlternation(node.body)) return 'a repeated alternation whose branches can match the same text (such as (a|ab)*) backtracks exponentially';
  }
  return undefined;
}

/**
 * Checks an operator's pattern for RegExp: undefined when it compiles and has no catastrophic
 * shape, else the problem (without the key path).
 */
export function backtrackingPatternProblem(source: string, flags = ''): string | undefined {
  try {
    new RegExp(source, flags);
  } catch (err) {
    return `is not a valid regular expression: ${(err as Error).message}`;
  }
  let tree: RegexNode;
  try {
    tree = parseRegex(source, flags);
  } catch (err) {
    if (err instanceof RegexSyntaxError) return `could not be checked for catastrophic backtracking (${err.message}); simplify it`;
    throw err;
  }
  const shape = catastrophicShape(tree);
  return shape ? `may backtrack catastrophically: ${shape}; rewrite it without nesting (e.g. (a+)+ as a+)` : undefined;
}

/** Compiles an operator's pattern on RegExp after the shape check; throws Error(problem). */
export function compileCheckedRegExp(source: string, flags = ''): RegExp {
  const problem = backtrackingPatternProblem(source, flags);
  if (problem) throw new Error(problem);
  return new RegExp(source, flags);
}
