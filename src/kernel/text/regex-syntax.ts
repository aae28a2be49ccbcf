/**
 * A small parser of JavaScript regular-expression syntax into a tree, enough to judge a pattern's
 * shape (catastrophic-backtracking detector, RE2 feature check, size estimate). It does not
 * match anything. Character sets are kept as code-point ranges.
 */

/** Inclusive code-point ranges, sorted and merged. */
export type Ranges = ReadonlyArray<readonly [number, number]>;

export type RegexNode =
  | { type: 'chars'; ranges: Ranges }
  | { type: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { type: 'group'; capture: boolean; name?: string; body: RegexNode }
  | { type: 'look'; behind: boolean; negative: boolean; body: RegexNode }
  | { type: 'backref'; ref: string }
  | { type: 'alt'; branches: RegexNode[] }
  | { type: 'seq'; items: RegexNode[] }
  | { type: 'repeat'; min: number; max: number; lazy: boolean; body: RegexNode };

export class RegexSyntaxError extends Error {}

const MAX_CP = 0x10ffff;
export const ANY: Ranges = [[0, MAX_CP]];
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const NOT_LINE: Ranges = complement([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
]);

export function normalize(ranges: Iterable<readonly [number, number]>): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complement(ranges: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

export function overlaps(a: Ranges, b: Ranges): boolean {
  for (const [alo, ahi] of a) for (const [blo, bhi] of b) if (alo <= bhi && blo <= ahi) return true;
  return false;
}

/** Adds the other ASCII case of letters (for the `i` flag). */
export function foldCase(ranges: Ranges): Ranges {
  const out: Array<readonly [number, number]> = [...ranges];
  for (const [lo, hi] of ranges) {
    for (const [a, z, shift] of [
      [0x41, 0x5a, 0x20],
      [0x61, 0x7a, -0x20],
    ] as const) {
      const from = Math.max(lo, a);
      const to = Math.min(hi, z);
      if (from <= to) out.push([from + shift, to + shift]);
    }
  }
  return normalize(out);
}

class Parser {
  private i = 0;
  private groups = 0;

  constructor(
    private readonly src: string,
    private readonly unicode: boolean,
    private readonly dotAll: boolean,
  ) {}

  parse(): RegexNode {
    const node = this.alternation();
    if (this.i < this.src.length) this.fail(this.src[this.i] === ')' ? 'unmatched )' : `unexpected ${this.src[this.i]}`);
    return node;
  }

  private fail(message: string): never {
    throw new RegexSyntaxError(`${message} at position ${this.i}`);
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.i + offset];
  }

  private alternation(): RegexNode {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? branches[0]! : { type: 'alt', branches };
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { type: 'seq', items };
  }

  private quantified(atom: RegexNode): RegexNode {
    let node = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
        if (!m) {
          if (this.unicode) this.fail('lone {');
          return node;
        }
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        if (max < min) this.fail('numbers out of order in {} quantifier');
        this.i += m[0].length - 1;
      } else return node;
      this.i++;
      if (node.type === 'assert' || (node.type === 'look' && (this.unicode || node.behind))) this.fail('nothing to repeat');
      if (node.type === 'repeat') this.fail('nothing to repeat');
      const lazy = this.peek() === '?';
      if (lazy) this.i++;
      node = { type: 'repeat', min, max, lazy, body: node };
    }
  }

  private atom(): RegexNode {
    const c = this.src[this.i]!;
    switch (c) {
      case '^':
      case '$':
        this.i++;
        return { type: 'assert', kind: c };
      case '.':
        this.i++;
        return { type: 'chars', ranges: this.dotAll ? ANY : NOT_LINE };
      case '(':
        return this.group();
      case '[':
        return { type: 'chars', ranges: this.charClass() };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        return this.fail('nothing to repeat');
      case '{':
        if (this.unicode || /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i))) this.fail('nothing to repeat');
        break;
      case ']':
      case '}':
        if (this.unicode) this.fail(`lone ${c}`);
        break;
    }
    const cp = this.src.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { type: 'chars', ranges: [[cp, cp]] };
  }

  private group(): RegexNode {
    this.i++;
    let node: RegexNode;
    if (this.peek() === '?') {
      const rest = this.src.slice(this.i + 1);
      if (rest.startsWith(':')) {
        this.i += 2;
        node = { type: 'group', capture: false, body: this.alternation() };
      } else if (rest.startsWith('=') || rest.startsWith('!')) {
        this.i += 2;
        node = { type: 'look', behind: false, negative: rest[0] === '!', body: this.alternation() };
      } else if (rest.startsWith('<=') || rest.startsWith('<!')) {
        this.i += 3;
        node = { type: 'look', behind: true, negative: rest[1] === '!', body: this.alternation() };
      } else if (rest.startsWith('<')) {
        const m = /^<([A-Za-z_$][\w$]*)>/.exec(rest);
        if (!m) this.fail('invalid capture group name');
        this.i += 1 + m[0].length;
        this.groups++;
        node = { type: 'group', capture: true, name: m[1], body: this.alternation() };
      } else {
        return this.fail('invalid group');
      }
    } else {
      this.groups++;
      node = { type: 'group', capture: true, body: this.alternation() };
    }
    if (this.peek() !== ')') this.fail('unterminated group');
    this.i++;
    return node;
  }

  /** An escape outside a class. */
  private escape(): RegexNode {
    const next = this.peek(1);
    if (next === undefined) this.fail('\\ at end of pattern');
    if (next === 'b' || next === 'B') {
      this.i += 2;
      return { type: 'assert', kind: next };
    }
    if (/[1-9]/.test(next)) {
      const m = /^\d+/.exec(this.src.slice(this.i + 1))!;
      this.i += 1 + m[0].length;
      return { type: 'backref', ref: m[0] };
    }
    if (next === 'k' && (this.unicode || this.src.slice(this.i).startsWith('\\k<'))) {
      const m = /^k<([A-Za-z_$][\w$]*)>/.exec(this.src.slice(this.i + 1));
      if (!m) this.fail('invalid named reference');
      this.i += 1 + m[0].length;
      return { type: 'backref', ref: m[1]! };
    }
    return { type: 'chars', ranges: this.escapeRanges() };
  }

  /** An escape that stands for characters (in or outside a class); `this.i` is at the backslash. */
  private escapeRanges(inClass = false): Ranges {
    this.i++;
    const c = this.src[this.i]!;
    this.i++;
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'p':
      case 'P':
        if (this.unicode) {
          const m = /^\{[^}]+\}/.exec(this.src.slice(this.i));
          if (!m) this.fail('invalid property name');
          this.i += m[0].length;
          return ANY;
        }
        return [[c.codePointAt(0)!, c.codePointAt(0)!]];
      case 'b':
        // Only reached inside a class: backspace.
        return inClass ? [[8, 8]] : this.fail('unexpected \\b');
      case 't':
        return [[9, 9]];
      case 'n':
        return [[10, 10]];
      case 'v':
        return [[11, 11]];
      case 'f':
        return [[12, 12]];
      case 'r':
        return [[13, 13]];
      case '0':
        return [[0, 0]];
      case 'c': {
        const letter = this.peek();
        if (letter && /[A-Za-z]/.test(letter)) {
          this.i++;
          const cp = letter.charCodeAt(0) % 32;
          return [[cp, cp]];
        }
        if (this.unicode) this.fail('invalid \\c escape');
        this.i--;
        return [[0x5c, 0x5c]];
      }
      case 'x': {
        const m = /^[0-9A-Fa-f]{2}/.exec(this.src.slice(this.i));
        if (!m) {
          if (this.unicode) this.fail('invalid \\x escape');
          return [[0x78, 0x78]];
        }
        this.i += 2;
        const cp = parseInt(m[0], 16);
        return [[cp, cp]];
      }
      case 'u': {
        const braced = this.unicode ? /^\{([0-9A-Fa-f]{1,6})\}/.exec(this.src.slice(this.i)) : null;
        const m = braced ?? /^([0-9A-Fa-f]{4})/.exec(this.src.slice(this.i));
        if (!m) {
          if (this.unicode) this.fail('invalid \\u escape');
          return [[0x75, 0x75]];
        }
        this.i += m[0].length;
        const cp = parseInt(m[1]!, 16);
        if (cp > MAX_CP) this.fail('code point out of range');
        return [[cp, cp]];
      }
      default: {
        if (this.unicode && !/[\^$\\.*+?()[\]{}|/-]/.test(c)) this.fail(`invalid escape \\${c}`);
        const cp = c.codePointAt(0)!;
        return [[cp, cp]];
      }
    }
  }

  private charClass(): Ranges {
    this.i++;
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const parts: Array<readonly [number, number]> = [];
    const single = (): Ranges => {
      if (this.peek() === '\\') return this.escapeRanges(true);
      const cp = this.src.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      return [[cp, cp]];
    };
    while (this.peek() !== ']') {
      if (this.i >= this.src.length) this.fail('missing ]');
      const lo = single();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++;
        const hi = single();
        if (lo.length === 1 && hi.length === 1 && lo[0]![0] === lo[0]![1] && hi[0]![0] === hi[0]![1]) {
          if (hi[0]![0] < lo[0]![0]) this.fail('range out of order in character class');
          parts.push([lo[0]![0], hi[0]![0]]);
          continue;
        }
        if (this.unicode) this.fail('invalid character class range');
        parts.push(...lo, [0x2d, 0x2d], ...hi);
        continue;
      }
      parts.push(...lo);
    }
    this.i++;
    const ranges = normalize(parts);
    return negated ? complement(ranges) : ranges;
  }
}

/** Parses a pattern as `new RegExp(source, flags)` would; throws RegexSyntaxError. */
export function parseRegex(source: string, flags = ''): RegexNode {
  const tree = new Parser(source, flags.includes('u') || flags.includes('v'), flags.includes('s')).parse();
  return flags.includes('i') ? foldTree(tree) : tree;
}

function foldTree(node: RegexNode): RegexNode {
  switch (node.type) {
    case 'chars':
      return { type: 'chars', ranges: foldCase(node.ranges) };
    case 'group':
    case 'look':
    case 'repeat':
      return { ...node, body: foldTree(node.body) };
    case 'alt':
      return { type: 'alt', branches: node.branches.map(foldTree) };
    case 'seq':
      return { type: 'seq', items: node.items.map(foldTree) };
    default:
      return node;
  }
}
