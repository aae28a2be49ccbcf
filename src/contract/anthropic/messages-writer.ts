import type { FinishReason, StreamPart, Usage } from '../stream-parts.js';
import { ChunkReader } from '../openai/chunk-reader.js';
import { anthropicUsage, messageIdOf, stopReasonOf } from './shapes.js';

/** One SSE event of Anthropic's Messages stream. */
function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

type OpenBlock = { kind: 'text' | 'thinking'; index: number };

/**
 * Writes stream parts as Anthropic Messages SSE events, in the order Anthropic's clients
 * expect: message_start (with the input tokens known at the start), then content blocks in
 * order (thinking blocks as thinking, with their signature_delta; redacted ones whole; text;
 * tool_use with input_json_delta), each closed before a block of another kind opens (so no
 * thinking delta ever lands in a text block), then message_delta (stop reason, the exact usage,
 * input tokens included) and message_stop. Upstream Anthropic events pass through untouched.
 */
export class AnthropicMessagesWriter {
  private id = '';
  private model = '';
  private inputTokens = 0;
  private cachedTokens = 0;
  private started = false;
  private next = 0;
  private open: OpenBlock | undefined;
  /** tool call index -> block index, for calls whose block is still open. */
  private readonly tools = new Map<number, number>();
  /** Block indexes of the open tool_use blocks, in order. */
  private openTools: number[] = [];
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;
  private reader: ChunkReader | undefined;
  /** The upstream's own events pass through: nothing is added to them. */
  private passthrough = false;

  get lastUsage(): Usage | undefined {
    return this.usage;
  }

  write(part: StreamPart): string {
    switch (part.type) {
      case 'event':
        this.passthrough = true;
        return part.event ? `event: ${part.event}\ndata: ${part.data}\n\n` : `data: ${part.data}\n\n`;
      case 'chunk': {
        let out = '';
        for (const p of (this.reader ??= new ChunkReader()).read(part.data)) out += this.write(p);
        return out;
      }
      case 'meta':
        this.id = messageIdOf(part.id);
        this.model = part.model;
        if (part.inputTokens !== undefined) this.inputTokens = part.inputTokens;
        if (part.cachedTokens !== undefined) this.cachedTokens = part.cachedTokens;
        return '';
      case 'text':
        if (part.choice !== 0 || part.text === '') return '';
        return (this.open?.kind === 'text' ? '' : this.ensure('text', { type: 'text', text: '' })) + this.textDelta(part.text);
      case 'reasoning':
        if (part.choice !== 0 || part.text === '') return '';
        return this.ensure('thinking', { type: 'thinking', thinking: '', signature: '' }) + this.delta({ type: 'thinking_delta', thinking: part.text });
      case 'thinking-block': {
        if (part.choice !== 0) return '';
        const block = part.block;
        if (block.type === 'redacted_thinking') return this.closeOpen() + this.whole({ type: 'redacted_thinking', data: block.data });
        let out = this.ensure('thinking', { type: 'thinking', thinking: '', signature: '' });
        if (block.signature) out += this.delta({ type: 'signature_delta', signature: block.signature });
        return out + this.closeOpen();
      }
      case 'tool-call-start': {
        if (part.choice !== 0) return '';
        let out = this.start() + this.closeText();
        // a reasoning signature riding on the call goes in an empty thinking block right before it
        if (part.signature) {
          const at = this.next++;
          out +=
            event('content_block_start', { index: at, content_block: { type: 'thinking', thinking: '', signature: '' } }) +
            event('content_block_delta', { index: at, delta: { type: 'signature_delta', signature: part.signature } }) +
            event('content_block_stop', { index: at });
        }
        const index = this.next++;
        this.tools.set(part.index, index);
        this.openTools.push(index);
        // earlier tool blocks stay open: their argument deltas may still come
        return out + event('content_block_start', { index, content_block: { type: 'tool_use', id: part.id, name: part.name, input: {} } });
      }
      case 'tool-call-args': {
        const index = this.tools.get(part.index);
        if (part.choice !== 0 || index === undefined || part.args === '') return '';
        return event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part.args } });
      }
      case 'finish':
        if (part.choice === 0) this.finish = part.reason;
        return '';
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'done':
        return this.passthrough ? '' : this.end();
    }
  }

  /** The event that ends a failed stream. */
  failure(body: unknown): string {
    return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const usage = this.usage
      ? anthropicUsage(this.usage)
      : anthropicUsage({ prompt_tokens: this.inputTokens, completion_tokens: 0, total_tokens: this.inputTokens, prompt_tokens_details: { cached_tokens: this.cachedTokens } });
    usage.output_tokens = Math.min(usage.output_tokens!, 1);
    return event('message_start', {
      message: { id: this.id, type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
  }

  /** Opens a block of `kind` unless one is open (closing one of another kind first). */
  private ensure(kind: OpenBlock['kind'], contentBlock: Record<string, unknown>): string {
    if (this.open?.kind === kind) return '';
    let out = this.start() + this.closeOpen();
    const index = this.next++;
    this.open = { kind, index };
    out += event('content_block_start', { index, content_block: contentBlock });
    return out;
  }

  /**
   * A text_delta, the event most of a stream is made of, written without building its object:
   * the same text as delta({ type: 'text_delta', text }) gives.
   */
  private textDelta(text: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.open!.index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;
  }

  private delta(delta: Record<string, unknown>): string {
    return event('content_block_delta', { index: this.open!.index, delta });
  }

  /** A block given whole (redacted thinking). */
  private whole(contentBlock: Record<string, unknown>): string {
    const index = this.next++;
    return this.start() + event('content_block_start', { index, content_block: contentBlock }) + event('content_block_stop', { index });
  }

  /** Closes the open text or thinking block. */
  private closeText(): string {
    if (!this.open) return '';
    const index = this.open.index;
    this.open = undefined;
    return event('content_block_stop', { index });
  }

  /** Closes the open text or thinking block, and the tool blocks still open. */
  private closeOpen(): string {
    let out = this.closeText();
    for (const index of this.openTools) out += event('content_block_stop', { index });
    this.openTools = [];
    this.tools.clear();
    return out;
  }

  private end(): string {
    const out = this.start() + this.closeOpen();
    const usage = anthropicUsage(this.usage, this.inputTokens);
    return out + event('message_delta', { delta: { stop_reason: stopReasonOf(this.finish), stop_sequence: null }, usage }) + event('message_stop', {});
  }
}
