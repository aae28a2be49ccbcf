import type { FinishReason, StreamPart, ThinkingBlock, Usage } from '../stream-parts.js';
import { isJsonObject, objectOf, objectsOf, type JsonObject } from '../json.js';

const FINISH_REASONS = new Set<FinishReason>(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

/**
 * A chunk that carries only a piece of the answer's text, in OpenAI's own spelling (choice 0, no
 * finish, no usage; the fields OpenAI adds where it writes them), its strings without escapes or
 * control characters: the text is the capture. Most of a stream is such chunks; they are read
 * with this one expression instead of a parse. Any other chunk, or any other spelling, is parsed.
 */
const PLAIN_TEXT_CHUNK =
  // eslint-disable-next-line no-control-regex
  /^\{"id":"[^"\\\x00-\x1f]*","object":"chat\.completion\.chunk","created":(?:0|[1-9]\d{0,15}),"model":"[^"\\\x00-\x1f]*",(?:"service_tier":"[^"\\\x00-\x1f]*",)?(?:"system_fingerprint":(?:null|"[^"\\\x00-\x1f]*"),)?"choices":\[\{"index":0,"delta":\{(?:"role":"assistant",)?"content":"([^"\\\x00-\x1f]*)"(?:,"refusal":null)?\},"logprobs":null,"finish_reason":null\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\\x00-\x1f]*")?\}$/;

/** The first chunk of an answer in the same spelling (its role, maybe a first piece of text): id, created, model and the text are the captures. */
const FIRST_CHUNK =
  // eslint-disable-next-line no-control-regex
  /^\{"id":"([^"\\\x00-\x1f]*)","object":"chat\.completion\.chunk","created":(0|[1-9]\d{0,15}),"model":"([^"\\\x00-\x1f]*)",(?:"service_tier":"[^"\\\x00-\x1f]*",)?(?:"system_fingerprint":(?:null|"[^"\\\x00-\x1f]*"),)?"choices":\[\{"index":0,"delta":\{(?:"role":"assistant",)?"content":"([^"\\\x00-\x1f]*)"(?:,"refusal":null)?\},"logprobs":null,"finish_reason":null\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\\x00-\x1f]*")?\}$/;

/** The chunk that ends choice 0 in the same spelling (an empty delta, a finish reason): the reason is the capture. */
const FINISH_CHUNK =
  // eslint-disable-next-line no-control-regex
  /^\{"id":"[^"\\\x00-\x1f]*","object":"chat\.completion\.chunk","created":(?:0|[1-9]\d{0,15}),"model":"[^"\\\x00-\x1f]*",(?:"service_tier":"[^"\\\x00-\x1f]*",)?(?:"system_fingerprint":(?:null|"[^"\\\x00-\x1f]*"),)?"choices":\[\{"index":0,"delta":\{\},"logprobs":null,"finish_reason":"(stop|length|tool_calls|content_filter|function_call)"\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\\x00-\x1f]*")?\}$/;

/**
 * The usage-only chunk in the same spelling (no choices): the usage object's text is the
 * capture, parsed alone (a capture that is not one JSON object leaves the chunk to the parse).
 */
const USAGE_CHUNK =
  // eslint-disable-next-line no-control-regex
  /^\{"id":"[^"\\\x00-\x1f]*","object":"chat\.completion\.chunk","created":(?:0|[1-9]\d{0,15}),"model":"[^"\\\x00-\x1f]*",(?:"service_tier":"[^"\\\x00-\x1f]*",)?(?:"system_fingerprint":(?:null|"[^"\\\x00-\x1f]*"),)?"choices":\[\],"usage":(\{.*\})(?:,"obfuscation":"[^"\\\x00-\x1f]*")?\}$/;

/**
 * A capture of the chunk as a string of its own. V8 makes a substring of 13 characters or more
 * a view into its whole parent, here the text of the whole upstream read: an id or model kept
 * for the answer's life would keep that text alive (through the young generation's collections
 * and into the old one). The text parts, short-lived and mostly shorter, stay views.
 */
function detached(capture: string): string {
  return (' ' + capture).slice(1);
}

/** The object a JSON text holds; undefined when it holds something else or is not JSON. */
function parsedObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads OpenAI chat.completion.chunk JSON back into stream parts (the inverse of the chunk
 * writer), for answers that must be written in another format (Anthropic Messages, Responses)
 * while the provider streams OpenAI chunks. One reader per stream: it remembers which tool
 * calls started and whether the answer's ids were given.
 */
export class ChunkReader {
  private started = false;
  private readonly tools = new Set<string>();

  /**
   * The text of a chunk that carries only a piece of the answer's text (see PLAIN_TEXT_CHUNK;
   * '' when that piece is empty), read without a parse once the answer's ids were given;
   * undefined for any other chunk (read() reads it).
   */
  plainText(chunk: string): string | undefined {
    if (!this.started) return undefined;
    const plain = PLAIN_TEXT_CHUNK.exec(chunk);
    return plain ? plain[1]! : undefined;
  }

  /**
   * The parts of a chunk in OpenAI's own spelling (text, the first chunk, the finish, the usage;
   * see the expressions above), read without parsing the chunk; undefined for any other chunk.
   */
  private readSpelled(chunk: string): StreamPart[] | undefined {
    if (this.started) {
      const text = PLAIN_TEXT_CHUNK.exec(chunk);
      if (text) return text[1] ? [{ type: 'text', choice: 0, text: text[1] }] : [];
      const finish = FINISH_CHUNK.exec(chunk);
      if (finish) return [{ type: 'finish', choice: 0, reason: finish[1] as FinishReason }];
      const usage = USAGE_CHUNK.exec(chunk);
      const parsed = usage ? parsedObject(usage[1]!) : undefined;
      return parsed ? [{ type: 'usage', usage: parsed as Usage }] : undefined;
    }
    const first = FIRST_CHUNK.exec(chunk);
    if (!first) return undefined;
    this.started = true;
    const out: StreamPart[] = [{ type: 'meta', id: detached(first[1]!), model: detached(first[3]!), created: Number(first[2]) }];
    if (first[4]) out.push({ type: 'text', choice: 0, text: first[4] });
    return out;
  }

  /** The parts of one chunk (its JSON text or parsed value). */
  read(chunk: string | JsonObject): StreamPart[] {
    let data: JsonObject;
    if (typeof chunk === 'string') {
      const spelled = this.readSpelled(chunk);
      if (spelled) return spelled;
      try {
        data = objectOf(JSON.parse(chunk));
      } catch {
        return [];
      }
    } else data = chunk;
    const out: StreamPart[] = [];
    if (!this.started) {
      this.started = true;
      out.push({ type: 'meta', id: String(data.id ?? ''), model: String(data.model ?? ''), created: Number(data.created ?? Math.floor(Date.now() / 1000)) });
    }
    for (const choice of objectsOf(data.choices)) {
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const delta = objectOf(choice.delta);
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') out.push({ type: 'reasoning', choice: index, text: delta.reasoning_content });
      if (Array.isArray(delta.thinking_blocks)) {
        for (const block of delta.thinking_blocks as ThinkingBlock[]) out.push({ type: 'thinking-block', choice: index, block });
      }
      if (typeof delta.content === 'string' && delta.content !== '') out.push({ type: 'text', choice: index, text: delta.content });
      for (const call of objectsOf(delta.tool_calls)) {
        const n = typeof call.index === 'number' ? call.index : 0;
        const fn = objectOf(call.function);
        const key = `${index}:${n}`;
        if (!this.tools.has(key)) {
          this.tools.add(key);
          const start: StreamPart = { type: 'tool-call-start', choice: index, index: n, id: String(call.id ?? ''), name: String(fn.name ?? '') };
          const signature = objectOf(objectOf(call.extra_content).google).thought_signature;
          if (typeof signature === 'string' && signature !== '') start.signature = signature;
          out.push(start);
        }
        const args = fn.arguments;
        if (typeof args === 'string' && args !== '') out.push({ type: 'tool-call-args', choice: index, index: n, args });
      }
      if (typeof choice.finish_reason === 'string' && FINISH_REASONS.has(choice.finish_reason as FinishReason)) {
        out.push({ type: 'finish', choice: index, reason: choice.finish_reason as FinishReason });
      }
    }
    if (isJsonObject(data.usage)) out.push({ type: 'usage', usage: data.usage as Usage });
    return out;
  }
}
