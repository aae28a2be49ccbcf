import { Transform } from 'node:stream';
import { runAnswerSteps, wantsAnswer, type AnswerSteps } from '../dispatch/answer-steps.js';

/** Changes one JSON-RPC message (parsed) as it passes; returns it (or a replacement). */
export type MessageEdit = (message: Record<string, unknown>) => Record<string, unknown>;
/** Changes the text of one event (or a whole JSON answer) as it passes. */
export type TextEdit = (text: string) => string;

/** The JSON of an event's data lines (undefined when it has none). */
function dataOf(lines: string[]): string | undefined {
  const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
  return data.length ? data.join('\n') : undefined;
}

function withData(lines: string[], message: Record<string, unknown>): string {
  return [...lines.filter((l) => !l.startsWith('data:')), `data: ${JSON.stringify(message)}`].join('\n');
}

/** One event with the synchronous edits applied (the credentials masked, a list screened). */
function editEvent(block: string, text: TextEdit | undefined, message: MessageEdit | undefined): string {
  let out = block;
  if (message) {
    const lines = out.split(/\r?\n/);
    const data = dataOf(lines);
    if (data !== undefined) {
      try {
        out = withData(lines, message(JSON.parse(data) as Record<string, unknown>));
      } catch {
        // Not JSON: passed on as it came.
      }
    }
  }
  return text ? text(out) : out;
}

/** The event once the answer steps that want its message have seen it; as it was when none wants it. */
async function stepEvent(block: string, steps: AnswerSteps): Promise<string> {
  const lines = block.split(/\r?\n/);
  const data = dataOf(lines);
  if (data === undefined) return block;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return block;
  }
  if (!message || typeof message !== 'object' || Array.isArray(message) || !wantsAnswer(steps, message as Record<string, unknown>)) return block;
  const changed = await runAnswerSteps(steps, message as Record<string, unknown>);
  return changed ? withData(lines, changed) : block;
}

/**
 * A stream that edits what a tool server answers on an event stream, event by event, only
 * where the gateway must (its credentials masked, tools the caller may not use left out of
 * lists), then hands each answer some answer step wants (a tool result's guardrails) to the
 * steps: an event is passed on as soon as it is complete and, when a step wants it, rewritten
 * (the events after it wait, so the order holds). Unedited answers never go through this.
 */
export function rewritingStream(text: TextEdit | undefined, message: MessageEdit | undefined, steps?: AnswerSteps): Transform {
  let pending = '';
  const stepped = steps?.length ? steps : undefined;
  const events = (final: boolean): string[] => {
    const out: string[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(pending);
      if (!m) break;
      out.push(editEvent(pending.slice(0, m.index), text, message));
      pending = pending.slice(m.index + m[0].length);
    }
    if (final && pending) {
      out.push(editEvent(pending, text, message));
      pending = '';
    }
    return out;
  };
  const emit = (list: string[], tail: boolean, done: (err?: Error | null, data?: string) => void): void => {
    const join = (blocks: string[]) => blocks.map((b, i) => (tail && i === blocks.length - 1 ? b : `${b}\n\n`)).join('');
    if (!stepped) return done(null, join(list) || undefined);
    void (async () => {
      const out: string[] = [];
      for (const block of list) out.push(await stepEvent(block, stepped));
      return join(out);
    })().then(
      (out) => done(null, out || undefined),
      (err: Error) => done(err),
    );
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      emit(events(false), false, done);
    },
    flush(done) {
      if (!pending) return done();
      emit(events(true), true, done);
    },
  });
}
