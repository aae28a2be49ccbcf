import { describe, expect, it } from 'vitest';
import { notJsonEvent, passedChunk, passedEvent } from '../../../../../../src/features/models/providers/shared/passthrough-parts.js';
import { OPENAI_PASSTHROUGH_STREAM, RESPONSES_PASSTHROUGH_STREAM } from '../../../../../../src/features/models/providers/openai-compatible/openai-compatible.js';
import { ANTHROPIC_PASSTHROUGH_STREAM } from '../../../../../../src/features/models/providers/anthropic/native.js';
import type { ProviderCall } from '../../../../../../src/features/models/providers/provider.js';
import { GatewayError } from '../../../../../../src/contract/errors/gateway-error.js';

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected an error');
}

const NOT_OBJECTS = ['{not json', 'not json}', '[1,2]', '"text"', '42', '{', ' } ', 'null'];

describe('passthrough parts (the one maker of chunk and event parts that carry upstream bytes)', () => {
  it('carries data that is a JSON object by its ends untouched, white space at the ends included', () => {
    expect(passedChunk(' {"id":"c"}\n', 'openai')).toEqual({ type: 'chunk', data: ' {"id":"c"}\n' });
    expect(passedEvent('message_stop', '{"type":"message_stop"}', 'anthropic')).toEqual({ type: 'event', event: 'message_stop', data: '{"type":"message_stop"}' });
  });

  it("refuses data that is not a JSON object with the provider's retryable 502", () => {
    for (const data of NOT_OBJECTS) {
      for (const err of [thrown(() => passedChunk(data, 'openai')), thrown(() => passedEvent('x', data, 'openai'))]) {
        expect({ data, status: err.status, code: err.code, provider: err.provider, retryable: err.retryable, message: err.message }).toEqual({
          data,
          status: 502,
          code: 'provider_error',
          provider: 'openai',
          retryable: true,
          message: 'openai sent a stream event that is not JSON.',
        });
      }
    }
    expect(notJsonEvent(undefined).message).toBe('The provider sent a stream event that is not JSON.');
  });

  it("every passthrough stream mapper refuses such an event through it, naming the call's provider", () => {
    const call = { target: { provider: 'groq', options: {} } } as unknown as ProviderCall;
    const mappers = {
      'openai chunks': OPENAI_PASSTHROUGH_STREAM.createMapper(call),
      'responses events': RESPONSES_PASSTHROUGH_STREAM.createMapper(call),
      'anthropic events': ANTHROPIC_PASSTHROUGH_STREAM.createMapper(call),
    };
    for (const [name, map] of Object.entries(mappers)) {
      const provider = name.startsWith('anthropic') ? 'anthropic' : 'groq';
      const err = thrown(() => map({ event: 'message_delta', data: '{not json' }));
      expect({ name, status: err.status, message: err.message }).toEqual({ name, status: 502, message: `${provider} sent a stream event that is not JSON.` });
    }
  });
});
