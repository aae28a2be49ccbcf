/**
 * One streamed model call of a tool loop, read as it comes: its text (and reasoning) pieces go to
 * the loop at once (which relays them to the caller), and when the stream is whole its answer is
 * the route's own JSON answer (a Responses response, a chat.completion, an Anthropic message),
 * the same the loop reads from a call that was not streamed. Every provider's stream is already
 * the stream-part union (contract/stream-parts.ts): translated parts, OpenAI chunks (read back
 * with the chunk reader) or upstream events in the route's own format (Responses or Anthropic).
 */
import { GatewayError } from '../../contract/errors/gateway-error.js';
import { ChunkReader } from '../../contract/openai/chunk-reader.js';
import type { StreamFormat } from '../../contract/stream-format.js';
import type { FinishReason, StreamPart, Usage } from '../../contract/stream-parts.js';
import { messageFromChat, responseFromChat } from '../models/index.js';

type Json = Record<string, unknown>;

/** A tool call the chat assembler builds from translated parts. */
type AssembledCall = { id: string; type: 'function'; function: { name: string; arguments: string }; extra_content?: Json };

/** An Anthropic Messages event, with the fields read here (an upstream's: each checked where read). */
interface AnthropicEvent {
  type?: unknown;
  index?: unknown;
  message?: Json | null;
  content_block?: Json | null;
  delta?: { type?: unknown; text?: unknown; thinking?: unknown; signature?: unknown; partial_json?: unknown } | null;
  usage?: Json | null;
  error?: { message?: unknown } | null;
}

/** A Responses event, with the fields read here (an upstream's: each checked where read). */
interface ResponsesEvent {
  type?: unknown;
  item?: Json | null;
  delta?: unknown;
  response?: Json;
  message?: unknown;
}

/** Where the pieces of a round go as they arrive, in the order of the model's answer. */
export interface RoundSink {
  /** A message or reasoning item starts (its text follows in `delta`s). */
  start(kind: 'message' | 'reasoning'): void;
  delta(text: string): void;
  /** The open item is whole (`signature`: the reasoning block's). */
  end(signature?: string): void;
  /** A reasoning item shown whole (a redacted block; a Responses reasoning item, whose text is a summary at most). */
  whole(item: Json): void;
}

/** Tells the sink which item is open, so that each start has its end. */
class Opening {
  open: 'message' | 'reasoning' | undefined;
  constructor(private readonly sink: RoundSink) {}
  to(kind: 'message' | 'reasoning'): void {
    if (this.open === kind) return;
    this.close();
    this.open = kind;
    this.sink.start(kind);
  }
  close(signature?: string): void {
    if (!this.open) return;
    this.open = undefined;
    this.sink.end(signature);
  }
}

/** A chat.completion built from translated stream parts (choice 0). */
class ChatAssembler {
  private meta: { id: string; model: string; created: number } | undefined;
  private text = '';
  private reasoning = '';
  private readonly blocks: Json[] = [];
  private readonly calls = new Map<number, AssembledCall>();
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;

  add(part: StreamPart): void {
    switch (part.type) {
      case 'meta':
        this.meta ??= { id: part.id, model: part.model, created: part.created };
        break;
      case 'text':
        if (part.choice === 0) this.text += part.text;
        break;
      case 'reasoning':
        if (part.choice === 0) this.reasoning += part.text;
        break;
      case 'thinking-block':
        if (part.choice === 0) this.blocks.push(part.block);
        break;
      case 'tool-call-start':
        if (part.choice !== 0) break;
        this.calls.set(part.index, {
          id: part.id,
          type: 'function',
          function: { name: part.name, arguments: '' },
          ...(part.signature ? { extra_content: { google: { thought_signature: part.signature } } } : {}),
        });
        break;
      case 'tool-call-args': {
        const call = this.calls.get(part.index);
        if (part.choice === 0 && call) call.function.arguments += part.args;
        break;
      }
      case 'finish':
        if (part.choice === 0) this.finish = part.reason;
        break;
      case 'usage':
        this.usage = part.usage;
        break;
    }
  }

  result(model: string): Json {
    const message: Json = { role: 'assistant', content: this.text === '' ? null : this.text };
    if (this.reasoning !== '') message.reasoning_content = this.reasoning;
    if (this.blocks.length) message.thinking_blocks = this.blocks;
    if (this.calls.size) message.tool_calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const chat: Json = {
      id: this.meta?.id || `chatcmpl-${Date.now().toString(36)}`,
      object: 'chat.completion',
      created: this.meta?.created ?? Math.floor(Date.now() / 1000),
      model: this.meta?.model || model,
      choices: [{ index: 0, message, finish_reason: this.finish ?? (this.calls.size ? 'tool_calls' : 'stop'), logprobs: null }],
    };
    if (this.usage) chat.usage = this.usage;
    return chat;
  }
}

/** An Anthropic message built from Anthropic Messages events (a stream passed through from anthropic). */
class AnthropicAssembler {
  private message: Json | undefined;
  private readonly blocks: Json[] = [];
  private readonly json = new Map<number, string>();

  constructor(private readonly opening: Opening) {}

  add(event: AnthropicEvent, sink: RoundSink): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...(event.message ?? {}), content: [] };
        break;
      case 'content_block_start': {
        const block: Json = { ...(event.content_block ?? {}) };
        this.blocks[Number(event.index)] = block;
        if (block.type === 'text') {
          this.opening.to('message');
          if (typeof block.text === 'string' && block.text !== '') sink.delta(block.text);
        } else if (block.type === 'thinking') {
          this.opening.to('reasoning');
          if (typeof block.thinking === 'string' && block.thinking !== '') sink.delta(block.thinking);
        } else {
          this.opening.close();
          if (block.type === 'redacted_thinking') sink.whole(redactedItem(String(block.data ?? '')));
        }
        break;
      }
      case 'content_block_delta': {
        const index = Number(event.index);
        const block = this.blocks[index];
        const delta = event.delta ?? {};
        if (!block) break;
        if (delta.type === 'text_delta') {
          block.text = String(block.text ?? '') + String(delta.text ?? '');
          if (delta.text) sink.delta(String(delta.text));
        } else if (delta.type === 'thinking_delta') {
          block.thinking = String(block.thinking ?? '') + String(delta.thinking ?? '');
          if (delta.thinking) sink.delta(String(delta.thinking));
        } else if (delta.type === 'signature_delta') block.signature = String(block.signature ?? '') + String(delta.signature ?? '');
        else if (delta.type === 'input_json_delta') this.json.set(index, (this.json.get(index) ?? '') + String(delta.partial_json ?? ''));
        break;
      }
      case 'content_block_stop': {
        const index = Number(event.index);
        const block = this.blocks[index];
        if (block?.type === 'text' || block?.type === 'thinking') this.opening.close(block.type === 'thinking' ? (block.signature as string | undefined) || undefined : undefined);
        const text = this.json.get(index);
        if (block && text !== undefined) {
          try {
            block.input = JSON.parse(text === '' ? '{}' : text);
          } catch {
            block.input = {};
          }
        }
        break;
      }
      case 'message_delta':
        if (this.message) {
          Object.assign(this.message, event.delta ?? {});
          this.message.usage = { ...(this.message.usage ?? {}), ...(event.usage ?? {}) };
        }
        break;
      case 'error':
        throw new GatewayError('provider_error', String(event.error?.message ?? 'The model stream failed.'));
    }
  }

  result(model: string): Json {
    return { id: '', type: 'message', role: 'assistant', model, stop_reason: null, stop_sequence: null, usage: {}, ...this.message, content: this.blocks.filter(Boolean) };
  }
}

function redactedItem(data: string): Json {
  return { type: 'reasoning', summary: [], encrypted_content: data };
}

/**
 * One Responses event: a message's text as it comes; a reasoning item whole when it is done (its
 * text, when there is any, is a summary or encrypted); the response once complete.
 */
function responsesEvent(event: ResponsesEvent, opening: Opening, sink: RoundSink): Json | undefined {
  switch (event.type) {
    case 'response.output_item.added':
      if (event.item?.type === 'message') opening.to('message');
      else opening.close();
      return undefined;
    case 'response.output_text.delta':
      if (opening.open === 'message' && typeof event.delta === 'string' && event.delta !== '') sink.delta(event.delta);
      return undefined;
    case 'response.output_item.done':
      if (event.item?.type === 'message') opening.close();
      else if (event.item?.type === 'reasoning') sink.whole(event.item);
      return undefined;
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
      return event.response;
    case 'error':
      throw new GatewayError('provider_error', String(event.message ?? 'The model stream failed.'));
    default:
      return undefined;
  }
}

function parse(data: string): Json | undefined {
  try {
    const value = JSON.parse(data);
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads one streamed model answer to its end: its pieces to `sink` as they come; the route's
 * answer (format: responses, chat or anthropic) once the upstream says it is whole. A stream
 * cut before that is a provider_error.
 */
export async function readRound(parts: AsyncIterable<StreamPart>, format: StreamFormat, request: Json, sink: RoundSink): Promise<Json> {
  const opening = new Opening(sink);
  const chat = new ChatAssembler();
  const anthropic = new AnthropicAssembler(opening);
  let reader: ChunkReader | undefined;
  let events = false;
  let final: Json | undefined;
  let done = false;
  const typed = (part: StreamPart) => {
    chat.add(part);
    switch (part.type) {
      case 'text':
        if (part.choice === 0 && part.text !== '') {
          opening.to('message');
          sink.delta(part.text);
        }
        break;
      case 'reasoning':
        if (part.choice === 0 && part.text !== '') {
          opening.to('reasoning');
          sink.delta(part.text);
        }
        break;
      case 'thinking-block':
        if (part.choice !== 0) break;
        if (part.block.type === 'redacted_thinking') {
          opening.close();
          sink.whole(redactedItem(part.block.data));
        } else {
          opening.to('reasoning');
          opening.close(part.block.signature);
        }
        break;
      case 'tool-call-start':
        if (part.choice === 0) opening.close();
        break;
    }
  };
  for await (const part of parts) {
    if (part.type === 'done') {
      done = true;
      break;
    }
    if (part.type === 'chunk') {
      for (const read of (reader ??= new ChunkReader()).read(part.data)) typed(read);
    } else if (part.type === 'event') {
      events = true;
      const event = parse(part.data);
      if (!event) continue;
      if (format === 'anthropic') anthropic.add(event, sink);
      else final = responsesEvent(event, opening, sink) ?? final;
    } else typed(part);
  }
  opening.close();
  if (!done) throw new GatewayError('provider_error', 'The model stream ended before the answer was complete.');
  const model = String(request.model ?? '');
  if (events) {
    if (format === 'anthropic') return anthropic.result(model);
    if (!final) throw new GatewayError('provider_error', 'The model stream ended without its response.');
    return final;
  }
  const completion = chat.result(model);
  if (format === 'chat') return completion;
  if (format === 'anthropic') return messageFromChat(completion, request.model);
  return responseFromChat(completion, request);
}
