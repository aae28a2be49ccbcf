import type { Readable } from 'node:stream';
import { CLIENT_ANSWER_MS } from './call-deadlines.js';

type Id = string | number;

/** What a watched event stream said, read only when its wait runs out (nothing is parsed while it talks). */
interface Heard {
  answered: Set<Id>;
  asked: boolean;
  /** The start of an event not complete yet. */
  rest: string;
}

/** Reads the events of an event stream's text: the answers among them, and whether the server asked the client something. */
function hear(heard: Heard, text: string): void {
  const blocks = (heard.rest + text).split(/\r?\n\r?\n/);
  heard.rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (!data.length) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data.join('\n'));
    } catch {
      continue;
    }
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>) {
      if (!m || typeof m !== 'object' || m.id === undefined || m.id === null) continue;
      if (typeof m.method === 'string') heard.asked = true;
      else if ('result' in m || 'error' in m) heard.answered.add(m.id as Id);
    }
  }
}

/**
 * The call timeout of requests answered on a tool server's event stream (a relayed POST):
 * `ms` without a byte from the server (progress, log messages, anything), at least
 * CLIENT_ANSWER_MS once it asked the client something. When it runs out with requests still
 * unanswered, `expired` gets their ids. The stream's bytes are only kept (not parsed) until
 * then: a call that ends in time costs a timer and a listener. Returns what stops the watch.
 */
export function watchEventStream(body: Readable, ids: readonly Id[], ms: number, expired: (unanswered: Id[]) => void): () => void {
  let last = Date.now();
  let kept: Buffer[] = [];
  const heard: Heard = { answered: new Set(), asked: false, rest: '' };
  const onData = (chunk: Buffer) => {
    last = Date.now();
    kept.push(chunk);
  };
  const check = () => {
    if (kept.length) {
      hear(heard, Buffer.concat(kept).toString('utf8'));
      kept = [];
    }
    const unanswered = ids.filter((id) => !heard.answered.has(id));
    if (!unanswered.length) return stop();
    const left = last + (heard.asked ? Math.max(ms, CLIENT_ANSWER_MS) : ms) - Date.now();
    if (left > 0) {
      timer = setTimeout(check, left);
      timer.unref();
      return;
    }
    stop();
    expired(unanswered);
  };
  let timer = setTimeout(check, ms);
  timer.unref();
  body.on('data', onData);
  const stop = () => {
    clearTimeout(timer);
    body.off('data', onData);
  };
  body.once('close', stop);
  return stop;
}
