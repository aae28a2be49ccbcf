import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { OperationAdapter, ProviderCall, ProviderInstance, StreamAdapter } from '../provider.js';
import { baseUrlOf } from '../shared/upstream-url.js';
import { jsonRequestBody } from '../openai-compatible/openai-compatible.js';
import { passedEvent } from '../shared/passthrough-parts.js';
import { anthropicStreamError } from './errors.js';
import { objectOf, type JsonObject } from '../../../../contract/json.js';

/**
 * Anthropic's own Messages API routes (/v1/messages, /v1/messages/count_tokens) forwarded as
 * they are: the caller's bytes go upstream, the answer's bytes (or SSE events) come back
 * untouched. The caller's anthropic-version and anthropic-beta headers go with them.
 */
const PROTOCOL_HEADERS = ['anthropic-version', 'anthropic-beta'];

/** Events pass through; message_stop completes the answer; error events and a second message_start fail it. */
export const ANTHROPIC_PASSTHROUGH_STREAM: StreamAdapter = {
  framing: 'sse',
  createMapper() {
    let started = false;
    return (event): StreamPart | StreamPart[] | undefined => {
      if (!('data' in event) || event.data === '') return undefined;
      const type = event.event ?? /"type"\s*:\s*"([^"]+)"/.exec(event.data)?.[1];
      if (type === 'error') {
        let data: JsonObject;
        try {
          data = objectOf(JSON.parse(event.data));
        } catch {
          data = {};
        }
        throw anthropicStreamError(data.error);
      }
      // Made (and its data checked) before the state below is read: a broken event fails as not JSON.
      const part = passedEvent(type, event.data, 'anthropic');
      if (type === 'message_start') {
        if (started)
          throw new GatewayError('provider_error', 'anthropic started a second message inside an open one; the answer is broken.', { provider: 'anthropic', retryable: true });
        started = true;
      }
      return type === 'message_stop' ? [part, { type: 'done' }] : part;
    };
  },
};

export function nativeMessagesAdapter(path: '/v1/messages' | '/v1/messages/count_tokens', defaultVersion: string, extraHeaders: Record<string, string>): OperationAdapter {
  const adapter: OperationAdapter = {
    request(call: ProviderCall, provider: ProviderInstance) {
      const headers: Record<string, string> = { 'anthropic-version': defaultVersion, ...extraHeaders };
      for (const name of PROTOCOL_HEADERS) {
        const value = call.headers[name];
        if (typeof value === 'string' && value !== '') headers[name] = value;
      }
      headers['x-api-key'] = call.apiKey ?? '';
      headers['content-type'] = 'application/json';
      return { method: 'POST', url: `${baseUrlOf(call, provider)}${path}`, headers, body: jsonRequestBody(call) };
    },
  };
  if (path === '/v1/messages') adapter.stream = ANTHROPIC_PASSTHROUGH_STREAM;
  return adapter;
}
