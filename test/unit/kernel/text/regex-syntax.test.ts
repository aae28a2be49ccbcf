import { describe, expect, it } from 'vitest';
import { complement, parseRegex, RegexSyntaxError, type RegexNode } from '../../../../src/kernel/text/regex-syntax.js';

describe('regex-syntax parser', () => {
  it('parses sequences, groups, alternation and quantifiers', () => {
    const tree = parseRegex('^(?:ab|c)+?d{2,}$');
    expect(tree.type).toBe('seq');
    const items = (tree as Extract<RegexNode, { type: 'seq' }>).items;
    expect(items.map((n) => n.type)).toEqual(['assert', 'repeat', 'repeat', 'assert']);
    expect(items[1]).toMatchObject({ min: 1, max: Infinity, lazy: true, body: { type: 'group', capture: false, body: { type: 'alt' } } });
    expect(items[2]).toMatchObject({ min: 2, max: Infinity, lazy: false });
  });

  it('knows backreferences, lookaround and named groups', () => {
    expect(parseRegex('(a)\\1')).toMatchObject({ items: [{ type: 'group' }, { type: 'backref', ref: '1' }] });
    expect(parseRegex('(?<n>a)\\k<n>')).toMatchObject({
      items: [
        { type: 'group', name: 'n' },
        { type: 'backref', ref: 'n' },
      ],
    });
    expect(parseRegex('(?<=a)b')).toMatchObject({ items: [{ type: 'look', behind: true, negative: false }, {}] });
    expect(parseRegex('(?!a)')).toMatchObject({ type: 'look', behind: false, negative: true });
  });

  it('reads character classes as ranges', () => {
    expect(parseRegex('[a-c\\d]')).toEqual({
      type: 'chars',
      ranges: [
        [0x30, 0x39],
        [0x61, 0x63],
      ],
    });
    expect(parseRegex('[^a]')).toEqual({ type: 'chars', ranges: complement([[0x61, 0x61]]) });
    expect(parseRegex('\\x41')).toEqual({ type: 'chars', ranges: [[0x41, 0x41]] });
    expect(parseRegex('a', 'i')).toEqual({
      type: 'chars',
      ranges: [
        [0x41, 0x41],
        [0x61, 0x61],
      ],
    });
  });

  it('treats a brace that is no quantifier as a literal outside unicode mode', () => {
    expect(parseRegex('a{x')).toMatchObject({ type: 'seq', items: [{}, { ranges: [[0x7b, 0x7b]] }, {}] });
    expect(() => parseRegex('a{x', 'u')).toThrow(RegexSyntaxError);
  });

  it.each(['(', 'a)', '*a', 'a**', '[b-a]', '(?x)', '\\'])('refuses %s', (source) => {
    expect(() => parseRegex(source)).toThrow(RegexSyntaxError);
  });
});
