import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { StreamAdapter } from '../provider.js';
import { nowSeconds } from '../shared/openai-answer.js';
import { ToolCallStream } from '../shared/tool-call-stream.js';
import { answersThroughJsonTool, JSON_RESPONSE_TOOL } from '../shared/json-response.js';
import { forcedJsonTool } from './request.js';
import { finishReason, usageFrom } from './finish.js';
import { anthropicStreamError } from './errors.js';
import { objectOf, type JsonObject } from '../../../../contract/json.js';

/** A Messages stream event as Anthropic writes it (fields read defensively: anything may be missing). */
interface AnthropicEvent {
  type?: unknown;
  index: number;
  message?: JsonObject;
  content_block?: JsonObject;
  delta?: JsonObject;
  usage?: JsonObject;
  error?: unknown;
}

/** A text_delta event as Anthropic writes it, its text without escapes (the capture; JSON forbids raw control characters there). */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT_DELTA = /^\{"type":"content_block_delta","index":\d+,"delta":\{"type":"text_delta","text":"([^"\\\x00-\x1f]*)"\}\}$/;
/** The same event's start, whatever its text. */
const TEXT_DELTA = /^\{"type":"content_block_delta","index":\d+,"delta":\{"type":"text_delta","text":"/;
const TEXT_AT = '"text":"';
const PING = '{"type":"ping"}';
const MESSAGE_STOP = '{"type":"message_stop"}';

/**
 * The text of a text_delta event as Anthropic writes it (`{"type":"content_block_delta","index":N,
 * "delta":{"type":"text_delta","text":"..."}}`), from its string alone; undefined for any other
 * event or spelling (which is then parsed whole). Text without escapes is matched as it is (one
 * regular expression, no parse); text with escapes is parsed from its string, which parses only
 * if it is exactly the text's value (anything after it would hold an unescaped quote).
 */
function textDelta(data: string): string | undefined {
  if (!data.endsWith('"}}')) return undefined;
  const plain = PLAIN_TEXT_DELTA.exec(data);
  if (plain) return plain[1];
  if (!TEXT_DELTA.test(data)) return undefined;
  const from = data.indexOf(TEXT_AT) + TEXT_AT.length - 1;
  try {
    const text: unknown = JSON.parse(data.slice(from, -2));
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Anthropic's SSE events -> stream parts, event by event:
 * message_start -> meta; content_block_start (tool_use) -> tool-call-start; text_delta -> text;
 * thinking_delta -> reasoning, and the thinking block (with the signature of its
 * signature_delta) when it stops; redacted_thinking -> its block at once; input_json_delta ->
 * tool-call-args; content_block_stop closes a call; message_delta -> finish and usage;
 * message_stop -> done; ping is skipped; error throws the mapped error. A second message_start
 * inside an open message is a broken stream (an error, never a tool call with cut arguments).
 * Tool calls are numbered 0..n-1 although Anthropic's block index counts text blocks too.
 */
export const ANTHROPIC_STREAM: StreamAdapter = {
  framing: 'sse',
  createMapper(call) {
    const tools = new ToolCallStream('anthropic');
    const request = objectOf(call.body);
    const jsonTool = answersThroughJsonTool(request, forcedJsonTool(request));
    const jsonBlocks = new Set<number>();
    const thinking = new Map<number, { text: string; signature: string }>();
    let startUsage: JsonObject = {};
    let started = false;
    return (event): StreamPart | StreamPart[] | undefined => {
      if (!('data' in event) || event.data === '') return undefined;
      // Most events are text deltas: their text is read without parsing the whole event.
      const text = textDelta(event.data);
      if (text !== undefined) return text ? { type: 'text', choice: 0, text } : undefined;
      // The events without fields, as Anthropic writes them, need no parse either.
      if (event.data === PING) return undefined;
      if (event.data === MESSAGE_STOP) return { type: 'done' };
      let data: AnthropicEvent;
      try {
        data = objectOf(JSON.parse(event.data)) as unknown as AnthropicEvent;
      } catch {
        throw new GatewayError('provider_error', 'anthropic sent a stream event that is not JSON.', { provider: 'anthropic' });
      }
      switch (data.type) {
        case 'message_start': {
          if (started) {
            throw new GatewayError('provider_error', 'anthropic started a second message inside an open one; the answer is broken.', { provider: 'anthropic', retryable: true });
          }
          started = true;
          const message = objectOf(data.message);
          startUsage = objectOf(message.usage);
          const usage = usageFrom(startUsage);
          return {
            type: 'meta',
            id: String(message.id ?? ''),
            model: String(message.model ?? request.model ?? ''),
            created: nowSeconds(),
            inputTokens: usage.prompt_tokens,
            cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
          };
        }
        case 'content_block_start': {
          const block = objectOf(data.content_block);
          if (block.type === 'tool_use') {
            if (jsonTool && block.name === JSON_RESPONSE_TOOL) {
              jsonBlocks.add(data.index);
              return undefined;
            }
            return tools.start(data.index, String(block.id), String(block.name));
          }
          if (block.type === 'thinking') {
            const text = typeof block.thinking === 'string' ? block.thinking : '';
            thinking.set(data.index, { text, signature: typeof block.signature === 'string' ? block.signature : '' });
            return text ? { type: 'reasoning', choice: 0, text } : undefined;
          }
          if (block.type === 'redacted_thinking') return { type: 'thinking-block', choice: 0, block: { type: 'redacted_thinking', data: String(block.data ?? '') } };
          if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') return { type: 'text', choice: 0, text: block.text };
          return undefined;
        }
        case 'content_block_delta': {
          const delta = objectOf(data.delta);
          if (delta.type === 'text_delta') return typeof delta.text === 'string' && delta.text ? { type: 'text', choice: 0, text: delta.text } : undefined;
          if (delta.type === 'thinking_delta') {
            const open = thinking.get(data.index);
            if (!open || typeof delta.thinking !== 'string' || delta.thinking === '') return undefined;
            open.text += delta.thinking;
            return { type: 'reasoning', choice: 0, text: delta.thinking };
          }
          if (delta.type === 'signature_delta') {
            const open = thinking.get(data.index);
            if (open && typeof delta.signature === 'string') open.signature += delta.signature;
            return undefined;
          }
          if (delta.type === 'input_json_delta') {
            const json = typeof delta.partial_json === 'string' ? delta.partial_json : '';
            if (jsonBlocks.has(data.index)) return json ? { type: 'text', choice: 0, text: json } : undefined;
            // input of server-side tools (server_tool_use blocks) has no OpenAI equivalent
            return tools.has(data.index) ? tools.args(data.index, json) : undefined;
          }
          return undefined; // citation deltas have no OpenAI chat equivalent
        }
        case 'content_block_stop': {
          const open = thinking.get(data.index);
          if (open) {
            thinking.delete(data.index);
            return { type: 'thinking-block', choice: 0, block: { type: 'thinking', thinking: open.text, signature: open.signature } };
          }
          return tools.has(data.index) ? tools.stop(data.index) : undefined;
        }
        case 'message_delta': {
          const parts: StreamPart[] = [];
          const delta = objectOf(data.delta);
          if (delta.stop_reason) parts.push({ type: 'finish', choice: 0, reason: finishReason(delta.stop_reason, jsonTool) });
          parts.push({ type: 'usage', usage: usageFrom({ ...startUsage, ...objectOf(data.usage) }) });
          return parts;
        }
        case 'message_stop':
          return { type: 'done' };
        case 'error':
          throw anthropicStreamError(data.error);
        default:
          return undefined; // ping, and event types added later
      }
    };
  },
};
