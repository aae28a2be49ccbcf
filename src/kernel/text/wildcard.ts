/**
 * Wildcard patterns (`server__*`, `gpt-4o*`, `openai/*`): `*` matches any run of characters,
 * `?` (where allowed) any one character, everything else itself. Matched by the two-pointer
 * algorithm, which backtracks only to the last `*`: at most pattern × text steps, never the
 * exponential blow-up a RegExp of `.*` runs can take on a long name.
 */
export interface Wildcard {
  test(text: string): boolean;
}

export interface WildcardOptions {
  /** `?` matches any one character (else it is literal). */
  question?: boolean;
  ignoreCase?: boolean;
}

function matches(pattern: string, text: string, question: boolean): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern.charCodeAt(p);
    if (p < pattern.length && c !== 0x2a && (c === text.charCodeAt(t) || (question && c === 0x3f))) {
      p++;
      t++;
    } else if (p < pattern.length && c === 0x2a) {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === 0x2a) p++;
  return p === pattern.length;
}

/** Whether `text` matches the case-sensitive pattern `pattern` (`*` only), without compiling it: for patterns tested once. */
export function matchesWildcard(pattern: string, text: string): boolean {
  return pattern.includes('*') ? matches(pattern, text, false) : pattern === text;
}

/** Compiles a wildcard pattern: a pattern without wildcards is compared as a plain string. */
export function wildcard(pattern: string, options: WildcardOptions = {}): Wildcard {
  const question = options.question === true;
  const fold = options.ignoreCase === true;
  const source = fold ? pattern.toLowerCase() : pattern;
  const plain = !source.includes('*') && !(question && source.includes('?'));
  if (plain) return { test: (text) => (fold ? text.toLowerCase() : text) === source };
  return { test: (text) => matches(source, fold ? text.toLowerCase() : text, question) };
}
