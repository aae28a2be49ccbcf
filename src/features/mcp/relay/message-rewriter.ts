import { Transform } from 'node:stream';

/** Changes one JSON-RPC message (parsed) as it passes; returns it (or a replacement). */
export type MessageEdit = (message: Record<string, unknown>) => Record<string, unknown>;
/** Changes the text of one event (or a whole JSON answer) as it passes. */
export type TextEdit = (text: string) => string;

function editEvent(block: string, text: TextEdit | undefined, message: MessageEdit | undefined): string {
  let out = block;
  if (message) {
    const lines = out.split(/\r?\n/);
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (data.length) {
      try {
        const edited = JSON.stringify(message(JSON.parse(data.join('\n')) as Record<string, unknown>));
        out = [...lines.filter((l) => !l.startsWith('data:')), `data: ${edited}`].join('\n');
      } catch {
        // Not JSON: passed on as it came.
      }
    }
  }
  return text ? text(out) : out;
}

/**
 * A stream that edits what a tool server answers, message by message, only where the gateway
 * must (its credentials masked, tools the caller may not use left out of lists): whole events
 * of an event stream (an event is passed on as soon as it is complete, never held back for
 * the next), or a whole JSON answer. Unedited answers never go through this.
 */
export function rewritingStream(eventStream: boolean, text: TextEdit | undefined, message: MessageEdit | undefined): Transform {
  let pending = '';
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      if (!eventStream) return done();
      let out = '';
      for (;;) {
        const m = /\r?\n\r?\n/.exec(pending);
        if (!m) break;
        out += editEvent(pending.slice(0, m.index), text, message) + '\n\n';
        pending = pending.slice(m.index + m[0].length);
      }
      done(null, out || undefined);
    },
    flush(done) {
      if (!pending) return done();
      if (eventStream) return done(null, editEvent(pending, text, message));
      let out = pending;
      if (message) {
        try {
          const parsed = JSON.parse(pending) as unknown;
          out = JSON.stringify(Array.isArray(parsed) ? parsed.map((m) => message(m as Record<string, unknown>)) : message(parsed as Record<string, unknown>));
        } catch {
          // Not JSON: passed on as it came.
        }
      }
      done(null, text ? text(out) : out);
    },
  });
}
