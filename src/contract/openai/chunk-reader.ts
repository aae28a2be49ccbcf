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

  /** The parts of one chunk (its JSON text or parsed value). */
  read(chunk: string | JsonObject): StreamPart[] {
    let data: JsonObject;
    if (typeof chunk === 'string') {
      const text = this.plainText(chunk);
      if (text !== undefined) return text ? [{ type: 'text', choice: 0, text }] : [];
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
