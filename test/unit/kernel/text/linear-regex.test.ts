import { describe, expect, it } from 'vitest';
import { compileLinearRegex, linearPatternProblem, MAX_PATTERN_LENGTH, MAX_SUBJECT_LENGTH } from '../../../../src/kernel/text/linear-regex.js';

describe('linear-regex (RE2)', () => {
  it('matches like RegExp for ordinary patterns', () => {
    const cases: Array<[string, string, string]> = [
      ['^gpt-4', '', 'gpt-4o'],
      ['^gpt-4', '', 'xgpt-4'],
      ['mini$', '', 'gpt-4o-mini'],
      ['^(?<fam>claude|gpt)-\\d', '', 'claude-3'],
      ['\\u0041B', '', 'xAB'],
      ['\\u{1F600}', '', 'a😀'],
      ['^.$', '', '😀'],
      ['^GPT', 'i', 'gpt-4'],
      ['^b', 'm', 'a\nb'],
      ['a.b', 's', 'a\nb'],
      ['\\bpro\\b', '', 'tier pro plan'],
      ['[\\w-]+@x\\.io', '', 'me-1@x.io'],
    ];
    for (const [source, flags, subject] of cases) {
      expect(compileLinearRegex(source, flags).test(subject), `${source} /${flags} on ${subject}`).toBe(new RegExp(source, `${flags}u`).test(subject));
    }
  });

  it('runs a pattern that makes RegExp backtrack exponentially in linear time', () => {
    const re = compileLinearRegex('^(a+)+$');
    const started = performance.now();
    expect(re.test(`${'a'.repeat(34)}!`)).toBe(false);
    expect(re.test('a'.repeat(34))).toBe(true);
    // RegExp takes minutes on this input; a regression to it would time the test out.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses what RE2 cannot run, naming why', () => {
    expect(linearPatternProblem('(a)\\1')).toMatch(/backreference/);
    expect(linearPatternProblem('(?<n>a)\\k<n>')).toMatch(/backreference/);
    expect(linearPatternProblem('(?=a)b')).toMatch(/lookahead or lookbehind/);
    expect(linearPatternProblem('(?<!a)b')).toMatch(/lookahead or lookbehind/);
    expect(linearPatternProblem('(')).toMatch(/not a valid regular expression/);
    expect(linearPatternProblem('a++')).toMatch(/not a valid regular expression|RE2/);
    expect(linearPatternProblem('x'.repeat(MAX_PATTERN_LENGTH + 1))).toMatch(/longer than/);
    expect(linearPatternProblem('(a{100}){100}')).toMatch(/too large/);
    expect(linearPatternProblem('a', 'g')).toMatch(/flags/);
    expect(linearPatternProblem('^gpt-[0-9]+$')).toBeUndefined();
    expect(() => compileLinearRegex('(?=x)')).toThrow(/lookahead/);
  });

  it('never matches a value longer than the subject limit', () => {
    const re = compileLinearRegex('a');
    expect(re.test('a'.repeat(MAX_SUBJECT_LENGTH))).toBe(true);
    expect(re.test('a'.repeat(MAX_SUBJECT_LENGTH + 1))).toBe(false);
  });

  it('keeps RE2 heap use bounded over many distinct and refused patterns', () => {
    // re2-wasm has a fixed 16 MB heap and no finalizers: without freeing, about 9,000 compiled
    // patterns exhaust it and abort the module.
    for (let i = 0; i < 20_000; i++) {
      expect(compileLinearRegex(`^p${i}-(a|b)+$`).test(`p${i}-ab`)).toBe(true);
      expect(linearPatternProblem(`x${i}{1001}`)).toMatch(/too large|RE2/);
    }
    expect(compileLinearRegex('^still$').test('still')).toBe(true);
  }, 120_000);

  it('survives DFA-hostile patterns over long values', () => {
    let subject = '';
    for (let i = 0; i < MAX_SUBJECT_LENGTH - 1; i++) subject += i % 3 ? 'a' : 'b';
    for (let k = 0; k < 8; k++) {
      const re = compileLinearRegex(`(a|b)*a(a|b){${12 + k}}c`);
      expect(re.test(subject)).toBe(false);
    }
    expect(compileLinearRegex('^ok$').test('ok')).toBe(true);
  }, 120_000);
});
