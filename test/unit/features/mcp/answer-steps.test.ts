import { PassThrough, type Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runAnswerSteps, runAnswerStepsOnBody, wantsAnswer, type AnswerStep } from '../../../../src/features/mcp/dispatch/answer-steps.js';
import { rewritingStream } from '../../../../src/features/mcp/relay/message-rewriter.js';

type Json = Record<string, unknown>;

/** A step that wants the answers to `ids` and marks their results (after `gate`, when given, resolves). */
function marking(ids: Array<string | number>, gate?: Promise<void>): AnswerStep & { seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    seen,
    wants: (m) => ids.includes(m.id as string | number) && 'result' in m,
    rewrite: async (m) => {
      seen.push(m.id);
      await gate;
      return { ...m, result: { ...(m.result as Json), marked: true } };
    },
  };
}

const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

async function through(stream: Transform, chunks: string[]): Promise<string> {
  const source = new PassThrough();
  let out = '';
  stream.on('data', (d: Buffer | string) => (out += d.toString()));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  source.pipe(stream);
  for (const c of chunks) source.write(c);
  source.end();
  await ended;
  return out;
}

describe('answer steps: what the dispatch applies to the parsed answers before a transport writes them', () => {
  it('only answers are wanted; requests and notifications never reach a step', () => {
    const step = marking([1]);
    expect(wantsAnswer([step], { jsonrpc: '2.0', id: 1, result: {} })).toBe(true);
    expect(wantsAnswer([step], { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} })).toBe(false);
    expect(wantsAnswer([step], { jsonrpc: '2.0', method: 'notifications/progress', params: {} })).toBe(false);
    expect(wantsAnswer([step], { jsonrpc: '2.0', id: 2, result: {} })).toBe(false);
    expect(wantsAnswer([], { jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
  });

  it('steps run in order, each on what the one before left; none changing it: undefined', async () => {
    const first: AnswerStep = { wants: () => true, rewrite: async (m) => ({ ...m, result: { n: 1 } }) };
    const second: AnswerStep = { wants: (m) => (m.result as Json).n === 1, rewrite: async (m) => ({ ...m, result: { n: 2 } }) };
    expect(await runAnswerSteps([first, second], { jsonrpc: '2.0', id: 1, result: {} })).toEqual({ jsonrpc: '2.0', id: 1, result: { n: 2 } });
    const idle: AnswerStep = { wants: () => true, rewrite: async () => undefined };
    expect(await runAnswerSteps([idle], { jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
  });

  it('a whole JSON body: the wanted answers of a batch rewritten, the rest as they came; unwanted: the same bytes', async () => {
    const step = marking([2]);
    const batch = Buffer.from(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, result: { a: 1 } },
        { jsonrpc: '2.0', id: 2, result: { b: 2 } },
      ]),
    );
    const out = await runAnswerStepsOnBody([step], batch);
    expect(JSON.parse(out!.toString())).toEqual([
      { jsonrpc: '2.0', id: 1, result: { a: 1 } },
      { jsonrpc: '2.0', id: 2, result: { b: 2, marked: true } },
    ]);
    expect(await runAnswerStepsOnBody([marking([3])], batch)).toBeUndefined();
    expect(await runAnswerStepsOnBody([step], Buffer.from('not json'))).toBeUndefined();
  });

  it('an event stream: events no step wants pass as their bytes; a wanted answer is rewritten and what follows waits for it', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const step = marking([7], gate);
    const progress = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{ "progress": 1 }}\n\n`;
    const answer = event({ jsonrpc: '2.0', id: 7, result: { content: [] } });
    const after = event({ jsonrpc: '2.0', id: 8, result: {} });
    const done = through(rewritingStream(undefined, undefined, [step]), [progress, answer.slice(0, 20), answer.slice(20) + after]);
    await new Promise((r) => setImmediate(r));
    open();
    const out = await done;
    const blocks = out.split('\n\n').filter(Boolean);
    // The progress event keeps its own spacing (its bytes), the answer is marked, the one after comes after it.
    expect(blocks[0]).toBe(progress.trimEnd());
    expect(JSON.parse(blocks[1]!.split('data: ')[1]!)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [], marked: true } });
    expect(blocks[2]).toBe(after.trimEnd());
    expect(step.seen).toEqual([7]);
  });
});
