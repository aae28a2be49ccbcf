import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { StreamAdapter } from '../provider.js';
import { nowSeconds } from '../shared/openai-answer.js';
import { ToolCallStream } from '../shared/tool-call-stream.js';
import { finishReason, usageFrom } from './finish.js';
import { objectOf, type JsonObject } from '../../../../contract/json.js';

/**
 * Cohere v2 chat SSE events -> stream parts: message-start -> meta; content-delta and
 * tool-plan-delta -> text; tool-call-start -> tool-call-start (plus any argument text);
 * tool-call-delta -> tool-call-args; tool-call-end closes the call (a call whose arguments
 * were null gets "{}"); thinking deltas -> reasoning; message-end -> finish, usage and done.
 */
export const COHERE_STREAM: StreamAdapter = {
  framing: 'sse',
  createMapper(call) {
    const tools = new ToolCallStream('cohere');
    /** Calls whose argument text has begun (a lone "null" before any is no arguments at all). */
    const withArgs = new Set<string>();
    const args = (key: string, text: unknown): StreamPart | undefined => {
      if (typeof text !== 'string' || text === '') return undefined;
      if (!withArgs.has(key) && text.trim() === 'null') return undefined;
      withArgs.add(key);
      return tools.args(key, text);
    };
    let toolSeq = 0;
    let openKey: string | undefined;
    /** Cohere numbers tool calls by `index`; a missing index means the calls come one after the other. */
    const keyOf = (data: JsonObject, starting: boolean): string => {
      if (typeof data.index === 'number') return `i${data.index}`;
      if (starting) openKey = `s${toolSeq++}`;
      return openKey ?? 's0';
    };
    return (event): StreamPart | StreamPart[] | undefined => {
      if (!('data' in event) || event.data === '' || event.data === '[DONE]') return undefined;
      let data: JsonObject;
      try {
        data = objectOf(JSON.parse(event.data));
      } catch {
        throw new GatewayError('provider_error', 'cohere sent a stream event that is not JSON.', { provider: 'cohere' });
      }
      const delta = objectOf(data.delta);
      const message = objectOf(delta.message);
      const content = objectOf(message.content);
      switch (data.type) {
        case 'message-start':
          return { type: 'meta', id: String(data.id ?? ''), model: String(objectOf(call.body).model ?? ''), created: nowSeconds() };
        case 'content-delta': {
          const text = content.text;
          if (typeof text === 'string' && text !== '') return { type: 'text', choice: 0, text };
          const thinking = content.thinking;
          return typeof thinking === 'string' && thinking !== '' ? { type: 'reasoning', choice: 0, text: thinking } : undefined;
        }
        case 'tool-plan-delta': {
          const text = message.tool_plan;
          return typeof text === 'string' && text !== '' ? { type: 'text', choice: 0, text } : undefined;
        }
        case 'tool-call-start': {
          const tc = objectOf(message.tool_calls);
          const fn = objectOf(tc.function);
          const key = keyOf(data, true);
          const parts: StreamPart[] = [tools.start(key, String(tc.id), String(fn.name))];
          const first = args(key, fn.arguments);
          if (first) parts.push(first);
          return parts;
        }
        case 'tool-call-delta':
          return args(keyOf(data, false), objectOf(objectOf(message.tool_calls).function).arguments);
        case 'tool-call-end':
          return tools.stop(keyOf(data, false));
        case 'message-end': {
          return [{ type: 'finish', choice: 0, reason: finishReason(delta.finish_reason) }, { type: 'usage', usage: usageFrom(delta.usage) }, { type: 'done' }];
        }
        default:
          return undefined; // content-start, content-end, citation events
      }
    };
  },
};
