import { describe, expect, it } from 'vitest';
import { compileParamTable } from '../../../../../../src/features/models/providers/shared/param-table.js';

describe('param table interpreter', () => {
  it('renames, drops, and writes dotted destinations', () => {
    const map = compileParamTable({ model: 'model', top_p: 'generation.topP', seed: false });
    expect(map({ model: 'm', top_p: 0.5, seed: 7 })).toEqual({ model: 'm', generation: { topP: 0.5 } });
  });

  it('applies defaults (values and functions of the request) only when the field is absent', () => {
    const map = compileParamTable({
      max_completion_tokens: { to: 'max_tokens', default: (r: Record<string, any>) => r.max_tokens ?? 4096 },
      max_tokens: false,
      kind: { default: 'chat' },
    });
    expect(map({})).toEqual({ max_tokens: 4096, kind: 'chat' });
    expect(map({ max_tokens: 50 })).toEqual({ max_tokens: 50, kind: 'chat' });
    expect(map({ max_tokens: 50, max_completion_tokens: 70, kind: 'x' })).toEqual({ max_tokens: 70, kind: 'x' });
  });

  it('clamps numbers into [min, max]', () => {
    const map = compileParamTable({ temperature: { min: 0, max: 1 } });
    expect(map({ temperature: 1.8 })).toEqual({ temperature: 1 });
    expect(map({ temperature: -1 })).toEqual({ temperature: 0 });
    expect(map({ temperature: 0.3 })).toEqual({ temperature: 0.3 });
  });

  it('transforms values; undefined from a transform drops the field', () => {
    const map = compileParamTable({ stop: { to: 'stop_sequences', transform: (v) => (typeof v === 'string' ? [v] : (v as string[]).length ? v : undefined) } });
    expect(map({ stop: 'END' })).toEqual({ stop_sequences: ['END'] });
    expect(map({ stop: [] })).toEqual({});
  });

  it('computes destinations from the whole request', () => {
    const map = compileParamTable({
      system: {
        compute: (r) =>
          (r.messages as any[])
            .filter((m: any) => m.role === 'system')
            .map((m: any) => m.content)
            .join('\n') || undefined,
      },
      messages: { transform: (ms) => (ms as any[]).filter((m: any) => m.role !== 'system') },
    });
    expect(
      map({
        messages: [
          { role: 'system', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
    ).toEqual({ system: 'a', messages: [{ role: 'user', content: 'b' }] });
    expect(map({ messages: [{ role: 'user', content: 'b' }] })).toEqual({ messages: [{ role: 'user', content: 'b' }] });
  });

  it('passes unknown fields through, at the top level or under a path', () => {
    const table = { model: 'model', temperature: 'config.temperature', seed: false } as const;
    expect(compileParamTable(table)({ model: 'm', top_k: 5 })).toEqual({ model: 'm' });
    expect(compileParamTable(table, { passUnknown: true })({ model: 'm', top_k: 5, seed: 1 })).toEqual({ model: 'm', top_k: 5 });
    expect(compileParamTable(table, { unknownTo: 'extra' })({ model: 'm', top_k: 5, temperature: 0.2 })).toEqual({
      model: 'm',
      config: { temperature: 0.2 },
      extra: { top_k: 5 },
    });
  });

  it('ignores null values like absent ones', () => {
    const map = compileParamTable({ stop: 'stop_sequences', n: { default: 1 } });
    expect(map({ stop: null, n: null })).toEqual({ n: 1 });
  });
});
