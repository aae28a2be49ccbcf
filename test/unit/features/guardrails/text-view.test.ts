import { describe, expect, it } from 'vitest';
import { TextView, type TextPiece } from '../../../../src/features/guardrails/text-view.js';

function pieces(texts: Array<[string, number]>): { list: TextPiece[]; written: string[] } {
  const written = texts.map(([t]) => t);
  const list = texts.map(([text, group], i) => ({ text, group, write: (t: string) => (written[i] = t) }));
  return { list, written };
}

describe('TextView', () => {
  it('joins pieces of one group directly and groups with a newline', () => {
    const { list } = pieces([
      ['Hel', 0],
      ['lo', 0],
      ['World', 1],
    ]);
    expect(new TextView(list).text).toBe('Hello\nWorld');
  });

  it('masks a match spanning several pieces once, in the piece where it starts', () => {
    const { list, written } = pieces([
      ['write to jo', 0],
      ['hn@exam', 0],
      ['ple.com now', 0],
    ]);
    const view = new TextView(list);
    const start = view.text.indexOf('john');
    view.redact([{ start, end: start + 'john@example.com'.length, mask: '[REDACTED_EMAIL]' }]);
    expect(written).toEqual(['write to [REDACTED_EMAIL]', '', ' now']);
    expect(view.text).toBe('write to [REDACTED_EMAIL] now');
    expect(view.changed).toBe(true);
  });

  it('merges overlapping masks and leaves untouched pieces alone', () => {
    const { list, written } = pieces([
      ['abcdef', 0],
      ['untouched', 1],
    ]);
    const view = new TextView(list);
    view.redact([
      { start: 1, end: 3, mask: '[A]' },
      { start: 2, end: 5, mask: '[B]' },
    ]);
    expect(written).toEqual(['a[A]f', 'untouched']);
  });

  it('orders pieces by group so interleaved stream choices stay apart', () => {
    const { list } = pieces([
      ['A1', 0],
      ['B1', 1],
      ['A2', 0],
    ]);
    expect(new TextView(list).text).toBe('A1A2\nB1');
  });
});
