import type { FinishReason, StreamPart, Usage } from '../stream-parts.js';
import { ChunkReader } from './chunk-reader.js';
import {
  completionOf,
  functionCallItem,
  messageItem,
  outputItemId,
  outputText,
  reasoningItem,
  responseIdOf,
  responseObject,
  responsesUsage,
  type ResponseState,
} from './responses-shapes.js';

type Json = Record<string, unknown>;

type OpenItem =
  | { kind: 'message'; index: number; id: string; text: string; /** The text delta event's fields after its sequence number. */ deltaTail?: string }
  | { kind: 'reasoning'; index: number; id: string; text: string };

/**
 * Writes stream parts as Responses API events (`event: <type>` + data with `type` and
 * `sequence_number`): response.created and response.in_progress, then each output item in
 * order with its added / delta / done events (reasoning as reasoning_text, message text as
 * output_text, function calls with their argument deltas), then response.completed (or
 * response.incomplete) holding the whole response. `request` is the Responses request the
 * answer echoes. Upstream Responses events pass through untouched.
 */
export class ResponsesWriter {
  private seq = 0;
  private state: ResponseState | undefined;
  private open: OpenItem | undefined;
  /** tool call index -> its output item, while its arguments may still come. */
  private readonly calls = new Map<number, { index: number; item: Json }>();
  /** The open function call items, in order. */
  private openCalls: Array<{ index: number; item: Json }> = [];
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;
  private reader: ChunkReader | undefined;
  /** The upstream's own events pass through: nothing is added to them. */
  private passthrough = false;

  /**
   * `silent`: keeps the answer's state without writing text (to get the final response of a
   * stream someone else writes: both see the same parts, and item ids follow from the response
   * id and the item's position, so both hold the same response).
   */
  constructor(
    private readonly request: Json | undefined,
    private readonly silent = false,
  ) {}

  get lastUsage(): Usage | undefined {
    return this.usage;
  }

  /** The whole response once the answer is done (undefined before). */
  result(): Json | undefined {
    return this.state && this.state.status !== 'in_progress' ? responseObject(this.state, this.request) : undefined;
  }

  write(part: StreamPart): string {
    if (part.type === 'event') this.passthrough = true;
    if (this.passthrough) return part.type === 'event' ? (part.event ? `event: ${part.event}\ndata: ${part.data}\n\n` : `data: ${part.data}\n\n`) : '';
    if (!this.state && part.type !== 'meta' && part.type !== 'chunk') {
      this.write({ type: 'meta', id: '', model: String(this.request?.model ?? ''), created: Math.floor(Date.now() / 1000) });
    }
    switch (part.type) {
      case 'event':
        return part.event ? `event: ${part.event}\ndata: ${part.data}\n\n` : `data: ${part.data}\n\n`;
      case 'chunk': {
        let out = '';
        for (const p of (this.reader ??= new ChunkReader()).read(part.data)) out += this.write(p);
        return out;
      }
      case 'meta': {
        if (this.state) return '';
        this.state = { id: responseIdOf(part.id), createdAt: part.created, model: part.model, status: 'in_progress', output: [], usage: null };
        if (this.silent) return '';
        // Both events carry the same response: written once.
        const snapshot = JSON.stringify(this.snapshot());
        return this.responseEvent('response.created', snapshot) + this.responseEvent('response.in_progress', snapshot);
      }
      case 'reasoning': {
        if (part.choice !== 0 || part.text === '') return '';
        let out = '';
        if (this.open?.kind !== 'reasoning') out += this.openReasoning();
        const open = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
        open.text += part.text;
        return out + this.event('response.reasoning_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: part.text });
      }
      case 'thinking-block': {
        if (part.choice !== 0) return '';
        const block = part.block;
        if (block.type === 'redacted_thinking') {
          const out = this.closeAll();
          const index = this.state!.output.length;
          const item = reasoningItem(this.itemId('rs', index), block);
          this.state!.output.push(item);
          return out + this.event('response.output_item.added', { output_index: index, item }) + this.event('response.output_item.done', { output_index: index, item });
        }
        let out = '';
        if (this.open?.kind !== 'reasoning') out += this.openReasoning();
        return out + this.closeOpen(block.signature);
      }
      case 'text': {
        if (part.choice !== 0 || part.text === '') return '';
        let out = '';
        if (this.open?.kind !== 'message') {
          out += this.closeAll();
          const index = this.state!.output.length;
          const id = this.itemId('msg', index);
          this.open = { kind: 'message', index, id, text: '' };
          this.state!.output.push(messageItem(id, '', 'in_progress'));
          out +=
            this.event('response.output_item.added', { output_index: index, item: messageItem(id, '', 'in_progress') }) +
            this.event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: outputText('') });
        }
        const open = this.open as Extract<OpenItem, { kind: 'message' }>;
        open.text += part.text;
        return out + this.textDelta(open, part.text);
      }
      case 'tool-call-start': {
        if (part.choice !== 0) return '';
        const out = this.closeOpen();
        const index = this.state!.output.length;
        const item = functionCallItem(this.itemId('fc', index), part.id, part.name, '', part.signature, 'in_progress');
        this.state!.output.push(item);
        const open = { index, item };
        this.calls.set(part.index, open);
        this.openCalls.push(open);
        return out + this.event('response.output_item.added', { output_index: index, item: { ...item } });
      }
      case 'tool-call-args': {
        const call = this.calls.get(part.index);
        if (part.choice !== 0 || !call || part.args === '') return '';
        call.item.arguments += part.args;
        return this.event('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: part.args });
      }
      case 'finish':
        if (part.choice === 0) this.finish = part.reason;
        return '';
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'done': {
        const out = this.closeAll();
        const { status, incomplete } = completionOf(this.finish);
        this.state!.status = status;
        this.state!.incomplete = incomplete;
        this.state!.usage = responsesUsage(this.usage);
        if (this.silent) return '';
        return out + this.responseEvent(status === 'completed' ? 'response.completed' : 'response.incomplete', JSON.stringify(this.snapshot()));
      }
    }
  }

  /** The event that ends a failed stream (the OpenAI SDK raises it as an error). */
  failure(body: unknown): string {
    return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  }

  /**
   * response.output_text.delta, the event most of a stream is made of, written without building
   * its object: the same text as event() gives for { item_id, output_index, content_index: 0,
   * delta, logprobs: [] }.
   */
  private textDelta(open: Extract<OpenItem, { kind: 'message' }>, delta: string): string {
    const seq = this.seq++;
    if (this.silent) return '';
    open.deltaTail ??= `,"item_id":${JSON.stringify(open.id)},"output_index":${open.index},"content_index":0,"delta":`;
    return `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${seq}${open.deltaTail}${JSON.stringify(delta)},"logprobs":[]}\n\n`;
  }

  /** The same text as event(type, { response }) gives, with the response already written as JSON. */
  private responseEvent(type: string, response: string): string {
    const seq = this.seq++;
    if (this.silent) return '';
    return `event: ${type}\ndata: {"type":${JSON.stringify(type)},"sequence_number":${seq},"response":${response}}\n\n`;
  }

  private event(type: string, data: Json): string {
    const seq = this.seq++;
    if (this.silent) return '';
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq, ...data })}\n\n`;
  }

  /** The id of the output item at `index`: made from the response id, the same for every writer of this answer. */
  private itemId(prefix: 'msg' | 'rs' | 'fc', index: number): string {
    return outputItemId(prefix, this.state!.id, index);
  }

  /** The response as it stands, for JSON.stringify at once (it shares the state's items: not to be kept). */
  private snapshot(): Json {
    return responseObject(this.state!, this.request);
  }

  private openReasoning(): string {
    const out = this.closeAll();
    const index = this.state!.output.length;
    const id = this.itemId('rs', index);
    this.open = { kind: 'reasoning', index, id, text: '' };
    this.state!.output.push({ id, type: 'reasoning', summary: [], content: [] });
    return (
      out +
      this.event('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', summary: [], content: [] } }) +
      this.event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } })
    );
  }

  /** Closes the open message or reasoning item (a reasoning item with the signature that ended it). */
  private closeOpen(signature?: string): string {
    const open = this.open;
    if (!open) return '';
    this.open = undefined;
    if (open.kind === 'message') {
      const item = messageItem(open.id, open.text);
      this.state!.output[open.index] = item;
      return (
        this.event('response.output_text.done', { item_id: open.id, output_index: open.index, content_index: 0, text: open.text, logprobs: [] }) +
        this.event('response.content_part.done', { item_id: open.id, output_index: open.index, content_index: 0, part: outputText(open.text) }) +
        this.event('response.output_item.done', { output_index: open.index, item })
      );
    }
    const item = reasoningItem(open.id, { type: 'thinking', thinking: open.text, signature });
    this.state!.output[open.index] = item;
    return (
      this.event('response.reasoning_text.done', { item_id: open.id, output_index: open.index, content_index: 0, text: open.text }) +
      this.event('response.content_part.done', { item_id: open.id, output_index: open.index, content_index: 0, part: { type: 'reasoning_text', text: open.text } }) +
      this.event('response.output_item.done', { output_index: open.index, item })
    );
  }

  /** Closes the open item and every function call. */
  private closeAll(): string {
    let out = this.closeOpen();
    for (const { index, item } of this.openCalls) {
      item.status = 'completed';
      out +=
        this.event('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments }) +
        this.event('response.output_item.done', { output_index: index, item: { ...item } });
    }
    this.calls.clear();
    this.openCalls = [];
    return out;
  }
}
