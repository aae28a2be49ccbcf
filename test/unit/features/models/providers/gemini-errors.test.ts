import { describe, expect, it } from 'vitest';
import { mapGoogleError } from '../../../../../src/features/models/providers/gemini/errors.js';
import { mapAzureError } from '../../../../../src/features/models/providers/azure-openai/errors.js';

const body = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('Google error module', () => {
  it('reads error bodies sent as a one-element array (streaming endpoints without alt=sse)', () => {
    const err = mapGoogleError(
      'google',
      400,
      body([{ error: { code: 400, message: 'API key expired. Please renew the API key.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_EXPIRED' }] } }]),
      {},
    );
    expect([err.status, err.code, err.message, err.provider]).toEqual([401, 'invalid_api_key', 'API key expired. Please renew the API key.', 'google']);
  });

  it('turns RetryInfo.retryDelay into Retry-After, rounding up, unless the answer has the header', () => {
    const quota = {
      error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.2s' }] },
    };
    const fromBody = mapGoogleError('google', 429, body(quota), {});
    expect([fromBody.status, fromBody.headers?.['retry-after'], fromBody.retryAfter]).toEqual([429, '2', 2]);
    const fromHeader = mapGoogleError('google', 429, body(quota), { 'retry-after': '9' });
    expect(fromHeader.headers?.['retry-after']).toBe('9');
  });

  it('keeps a non-JSON error text as the message, and maps 5xx to provider_error', () => {
    const err = mapGoogleError('vertex-ai', 502, Buffer.from('<html>Bad Gateway</html>'), {});
    expect([err.status, err.code, err.message]).toEqual([502, 'provider_error', '<html>Bad Gateway</html>']);
  });

  it('leaves other 400s as invalid requests', () => {
    const err = mapGoogleError('google', 400, body({ error: { code: 400, message: 'Invalid JSON payload received. Unknown name "foo"', status: 'INVALID_ARGUMENT' } }), {});
    expect([err.status, err.code]).toEqual([400, 'missing_required_parameter']);
  });
});

describe('Azure OpenAI error module', () => {
  it('reads the inner ResponsibleAIPolicyViolation code and the images contentFilter code', () => {
    const inner = mapAzureError('azure-openai', 400, body({ error: { code: 'BadRequest', message: 'Filtered', innererror: { code: 'ResponsibleAIPolicyViolation' } } }), {});
    expect([inner.status, inner.code]).toEqual([400, 'content_policy_violation']);
    const images = mapAzureError('azure-openai', 400, body({ error: { code: 'contentFilter', message: 'Your task failed as a result of our safety system.' } }), {});
    expect(images.code).toBe('content_policy_violation');
  });

  it('falls back to the OpenAI error rules', () => {
    const err = mapAzureError('azure-openai', 400, body({ error: { code: 'invalid_value', message: "'foo' is not valid", param: 'messages' } }), {});
    expect([err.status, err.code, err.param]).toEqual([400, 'missing_required_parameter', 'messages']);
  });
});
