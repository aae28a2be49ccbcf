import { GatewayError } from '../../errors/gateway-error.js';
import type { StreamPart } from '../../protocol/stream-parts.js';
import type { StreamAdapter } from '../provider.js';
import { newCompletionId, nowSeconds } from '../shared/openai-answer.js';
import { ToolCallStream } from '../shared/tool-call-stream.js';
import { finishReason, usageFrom } from './finish.js';
import { bedrockStreamError } from './errors.js';

/**
 * ConverseStream events (decoded by the central aws-eventstream framing) -> stream parts:
 * messageStart -> meta; contentBlockStart (toolUse) -> tool-call-start; contentBlockDelta ->
 * text or tool-call-args; contentBlockStop closes a call; messageStop -> finish; metadata ->
 * usage and done (it is the last event). Exception messages throw the mapped error.
 */
export const CONVERSE_STREAM: StreamAdapter = {
  framing: 'aws-eventstream',
  createMapper(call) {
    const tools = new ToolCallStream('bedrock');
    return (event): StreamPart | StreamPart[] | undefined => {
      if (!('headers' in event)) return undefined;
      const kind = event.headers[':message-type'];
      if (kind === 'exception') throw bedrockStreamError(event.headers[':exception-type'], event.payload);
      if (kind === 'error') {
        throw new GatewayError('provider_error', `bedrock stream error ${event.headers[':error-code'] ?? ''}: ${event.headers[':error-message'] ?? ''}`.trim(), {
          provider: 'bedrock',
        });
      }
      let data: any;
      try {
        data = event.payload.length ? JSON.parse(event.payload.toString('utf8')) : {};
      } catch {
        throw new GatewayError('provider_error', 'bedrock sent a stream event that is not JSON.', { provider: 'bedrock' });
      }
      switch (event.headers[':event-type']) {
        case 'messageStart':
          return { type: 'meta', id: newCompletionId(), model: String(call.body?.model ?? ''), created: nowSeconds() };
        case 'contentBlockStart': {
          const toolUse = data.start?.toolUse;
          return toolUse ? tools.start(data.contentBlockIndex, String(toolUse.toolUseId), String(toolUse.name)) : undefined;
        }
        case 'contentBlockDelta': {
          const delta = data.delta ?? {};
          if (typeof delta.text === 'string') return delta.text ? { type: 'text', choice: 0, text: delta.text } : undefined;
          if (delta.toolUse) return tools.args(data.contentBlockIndex, delta.toolUse.input);
          return undefined; // reasoning and citation deltas have no OpenAI chat equivalent
        }
        case 'contentBlockStop':
          return tools.has(data.contentBlockIndex) ? tools.stop(data.contentBlockIndex) : undefined;
        case 'messageStop':
          return { type: 'finish', choice: 0, reason: finishReason(data.stopReason) };
        case 'metadata':
          return [{ type: 'usage', usage: usageFrom(data.usage) }, { type: 'done' }];
        default:
          return undefined;
      }
    };
  },
};
