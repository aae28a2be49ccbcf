import { lastUsageObject } from '../usage-member.js';

/**
 * Scans an upstream OpenAI SSE body (chat or text completion chunks) as bytes, for a stream the
 * gateway passes through as it came: whole `data: <chunk>\n\n` events pass in the upstream's own
 * bytes (no decoding, no event objects, no re-encoding), and the scan only notes what the
 * gateway must act on: `data: [DONE]` (the answer is whole; nothing after it is passed), an
 * error event (the upstream failed mid-stream), and, when asked, the usage chunk. Anything the
 * parser would write differently (a comment, an `event:` or `id:` field, CRLF line ends,
 * multi-line or empty data) or that is not `{...}` by its ends (data that is not a chunk, for
 * the provider's mapper to judge) is handed back as `rest`, for the caller to parse from there on.
 */
/** What one scan found. */
export interface SseScan {
  /** Whole events to pass on, in the upstream's bytes (ends with `data: [DONE]\n\n` when `done`). */
  out: Buffer | undefined;
  /** `out` ends the answer. */
  done: boolean;
  /** The data of an error event right after `out`: the stream failed there. */
  error: string | undefined;
  /** The bytes from the first event the scan does not pass as it is (to be parsed). */
  rest: Buffer | undefined;
}

const LF = 10;
const CR = 13;
const DATA = Buffer.from('data: ');
const DONE = Buffer.from('[DONE]');
const ERROR = Buffer.from('{"error"');
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/** Whether buf[at, end) starts with `prefix` (a few bytes: compared in JS, cheaper than a native call per event). */
function startsWith(buf: Buffer, at: number, end: number, prefix: Buffer): boolean {
  const n = prefix.length;
  if (end - at < n) return false;
  for (let i = 0; i < n; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

export class OpenAISseScanner {
  private carry: Buffer | undefined;
  /** The usage of the last usage chunk passed (only when `noteUsage`). */
  usage: Record<string, unknown> | undefined;

  constructor(
    private readonly noteUsage: boolean,
    /** Leave the usage-only chunk out of `out` (the gateway asked for usage the caller did not): the one event copied. */
    private readonly hideUsage = false,
  ) {}

  /** Takes the next upstream chunk. */
  scan(chunk: Buffer): SseScan {
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const len = buf.length;
    let pos = 0;
    let done = false;
    let error: string | undefined;
    let rest: Buffer | undefined;
    for (;;) {
      const nl = buf.indexOf(LF, pos);
      // An event is whole once its blank line is here.
      if (nl < 0 || nl + 1 >= len) break;
      if (buf[nl + 1] !== LF || buf[nl - 1] === CR || nl - pos <= DATA.length || !startsWith(buf, pos, nl, DATA)) {
        rest = buf.subarray(pos);
        break;
      }
      const data = pos + DATA.length;
      if (nl - data === DONE.length && startsWith(buf, data, nl, DONE)) {
        done = true;
        pos = nl + 2;
        break;
      }
      if (startsWith(buf, data, nl, ERROR)) {
        error = buf.toString('utf8', data, nl);
        break;
      }
      // Data that is not `{...}` by its ends is the mapper's to judge (a broken stream, see OPENAI_PASSTHROUGH_STREAM).
      if (buf[data] !== OPEN_BRACE || buf[nl - 1] !== CLOSE_BRACE) {
        rest = buf.subarray(pos);
        break;
      }
      pos = nl + 2;
    }
    // A read of whole events (the common case) passes as the same Buffer.
    let out = pos === len ? buf : pos > 0 ? buf.subarray(0, pos) : undefined;
    if (!done && error === undefined && rest === undefined && pos < len) this.carry = buf.subarray(pos);
    if (out && (this.noteUsage || this.hideUsage)) {
      const event = this.findUsage(out);
      if (event && this.hideUsage) {
        const left = out.length - (event.end - event.start);
        out = left > 0 ? Buffer.concat([out.subarray(0, event.start), out.subarray(event.end)]) : undefined;
        // An answer whose last bytes were the usage chunk still ends with [DONE] in `out`.
      }
    }
    return { out, done, error, rest };
  }

  /** Bytes of an event not yet whole when the upstream body ended. */
  leftover(): Buffer | undefined {
    const rest = this.carry;
    this.carry = undefined;
    return rest;
  }

  /**
   * The last usage chunk among whole events (the usage chunk is the last before [DONE]): its
   * usage noted; its place in `out` when it is a usage-only chunk (no choices).
   */
  private findUsage(out: Buffer): { start: number; end: number } | undefined {
    const at = lastUsageObject(out);
    if (at < 0) return undefined;
    const start = out.lastIndexOf('\n\n', at);
    const eventStart = start < 0 ? 0 : start + 2;
    const from = eventStart + DATA.length;
    const end = out.indexOf(LF, at);
    const dataEnd = end < 0 ? out.length : end;
    try {
      const chunk = JSON.parse(out.toString('utf8', from, dataEnd));
      const usage = chunk?.usage;
      if (usage && typeof usage === 'object') this.usage = usage;
      if (Array.isArray(chunk?.choices) && chunk.choices.length === 0) return { start: eventStart, end: Math.min(out.length, dataEnd + 2) };
    } catch {
      // not JSON: the chunk still passes through unchanged
    }
    return undefined;
  }
}
