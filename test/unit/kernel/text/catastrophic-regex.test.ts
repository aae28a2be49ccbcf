import { describe, expect, it } from 'vitest';
import { backtrackingPatternProblem, catastrophicShape, compileCheckedRegExp } from '../../../../src/kernel/text/catastrophic-regex.js';
import { parseRegex } from '../../../../src/kernel/text/regex-syntax.js';

const shape = (source: string, flags = '') => catastrophicShape(parseRegex(source, flags));

describe('catastrophic-regex detector', () => {
  it.each([
    ['^(a+)+$', /nested quantifiers/],
    ['(a*)*', /nested quantifiers/],
    ['(a+)*b', /nested quantifiers/],
    ['(?:\\w+\\s?)*$', /nested quantifiers/],
    ['(x{1,3})+', /nested quantifiers/],
    ['(.*,){20}', /nested quantifiers/],
    ['^(?<word>[a-z]+-?)+$', /nested quantifiers/],
    ['(a|a)*', /alternation/],
    ['(a|ab)*c', /alternation/],
    ['(?:\\d|[0-9a-f])+$', /alternation/],
    ['(a|)+', /alternation/],
    ['((a)\\2)+', /backreference/],
    ['(?:(x)\\k<n>)*', /backreference/],
  ])('refuses %s', (source, why) => {
    expect(shape(source)).toMatch(why);
  });

  it('treats case-insensitive letters as the same character', () => {
    expect(shape('(a|B)+')).toBeUndefined();
    expect(shape('(a|A)+', 'i')).toMatch(/alternation/);
  });

  it.each([
    '^gpt-4',
    '^(gpt|claude)-[a-z0-9.-]+$',
    '(\\d+\\.){3}\\d+',
    '(ab){2,5}',
    '^(?:get|post|head)+$',
    '[a-z]+@[a-z]+\\.com',
    '(a|b)*c',
    '^\\s*$',
    '(?:x?){3}',
    '\\b(secret|token)\\b',
    '[\\s\\S]*?end',
    '(?=a)a+',
    '\\u{1F600}+',
  ])('accepts %s', (source) => {
    expect(shape(source, source.includes('\\u{') ? 'u' : '')).toBeUndefined();
  });

  it('names the problem for invalid and catastrophic patterns, and compiles safe ones', () => {
    expect(backtrackingPatternProblem('(')).toMatch(/^is not a valid regular expression/);
    expect(backtrackingPatternProblem('^(a+)+$')).toMatch(/^may backtrack catastrophically: .*nested quantifiers/);
    expect(backtrackingPatternProblem('^gpt-[0-9]+$')).toBeUndefined();
    expect(() => compileCheckedRegExp('(a|ab)*')).toThrow(/may backtrack catastrophically/);
    const re = compileCheckedRegExp('^GPT', 'i');
    expect(re.test('gpt-4o')).toBe(true);
  });
});
