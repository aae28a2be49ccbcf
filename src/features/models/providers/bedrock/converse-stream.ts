import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart, ThinkingBlock } from '../../../../contract/stream-parts.js';
import type { StreamAdapter, StreamMapper } from '../provider.js';
import { newCompletionId, nowSeconds } from '../shared/openai-answer.js';
import { ToolCallStream } from '../shared/tool-call-stream.js';
import { finishReason, usageFrom } from './finish.js';
import { bedrockStreamError } from './errors.js';
import { isJsonObject, objectOf, type JsonObject } from '../../../../contract/json.js';

/**
 * ConverseStream events (decoded by the central aws-eventstream framing) -> stream parts:
 * messageStart -> meta; contentBlockStart (toolUse) -> tool-call-start; contentBlockDelta ->
 * text, reasoning (its signature and redacted bytes kept for the block) or tool-call-args;
 * contentBlockStop closes a call or a reasoning block (-> thinking-block); messageStop ->
 * finish; metadata -> usage. The answer is done once both messageStop and metadata came, in
 * either order; a stream that ends after messageStop with no metadata is done too (without
 * usage). Exception messages throw the mapped error.
 */
export const CONVERSE_STREAM: StreamAdapter = {
  framing: 'aws-eventstream',
  createMapper(call) {
    const tools = new ToolCallStream('bedrock');
    const reasoning = new Map<number, { text: string; signature: string; redacted: string }>();
    let stopped = false;
    let measured = false;
    let done = false;
    const finishIfComplete = (parts: StreamPart[]): StreamPart[] => {
      if (stopped && measured && !done) {
        done = true;
        parts.push({ type: 'done' });
      }
      return parts;
    };
    const mapper: StreamMapper = (event): StreamPart | StreamPart[] | undefined => {
      if (!('headers' in event)) return undefined;
      const kind = event.headers[':message-type'];
      if (kind === 'exception') throw bedrockStreamError(event.headers[':exception-type'], event.payload);
      if (kind === 'error') {
        throw new GatewayError('provider_error', `bedrock stream error ${event.headers[':error-code'] ?? ''}: ${event.headers[':error-message'] ?? ''}`.trim(), {
          provider: 'bedrock',
        });
      }
      if (done) return undefined;
      let data: JsonObject;
      try {
        data = event.payload.length ? objectOf(JSON.parse(event.payload.toString('utf8'))) : {};
      } catch {
        throw new GatewayError('provider_error', 'bedrock sent a stream event that is not JSON.', { provider: 'bedrock' });
      }
      const index = Number(data.contentBlockIndex);
      switch (event.headers[':event-type']) {
        case 'messageStart':
          return { type: 'meta', id: newCompletionId(), model: String(objectOf(call.body).model ?? ''), created: nowSeconds() };
        case 'contentBlockStart': {
          const toolUse = objectOf(data.start).toolUse;
          return isJsonObject(toolUse) ? tools.start(index, String(toolUse.toolUseId), String(toolUse.name)) : undefined;
        }
        case 'contentBlockDelta': {
          const delta = objectOf(data.delta);
          if (typeof delta.text === 'string') return delta.text ? { type: 'text', choice: 0, text: delta.text } : undefined;
          if (delta.toolUse) {
            const input = objectOf(delta.toolUse).input;
            return tools.args(index, typeof input === 'string' ? input : '');
          }
          if (delta.reasoningContent) {
            let open = reasoning.get(index);
            if (!open) reasoning.set(index, (open = { text: '', signature: '', redacted: '' }));
            const r = objectOf(delta.reasoningContent);
            if (typeof r.signature === 'string') open.signature += r.signature;
            if (typeof r.redactedContent === 'string') open.redacted += r.redactedContent;
            if (typeof r.text === 'string' && r.text !== '') {
              open.text += r.text;
              return { type: 'reasoning', choice: 0, text: r.text };
            }
          }
          return undefined; // citation deltas have no OpenAI chat equivalent
        }
        case 'contentBlockStop': {
          const open = reasoning.get(index);
          if (open) {
            reasoning.delete(index);
            const block: ThinkingBlock =
              open.redacted !== '' && open.text === '' ? { type: 'redacted_thinking', data: open.redacted } : { type: 'thinking', thinking: open.text, signature: open.signature };
            return { type: 'thinking-block', choice: 0, block };
          }
          return tools.has(index) ? tools.stop(index) : undefined;
        }
        case 'messageStop':
          stopped = true;
          return finishIfComplete([{ type: 'finish', choice: 0, reason: finishReason(data.stopReason) }]);
        case 'metadata':
          measured = true;
          return finishIfComplete([{ type: 'usage', usage: usageFrom(data.usage) }]);
        default:
          return undefined;
      }
    };
    // The stream ended: an answer whose messageStop came is complete even with no metadata.
    mapper.end = () => (stopped && !done ? ((done = true), [{ type: 'done' }]) : undefined);
    return mapper;
  },
};
