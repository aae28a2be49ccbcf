import { describe, expect, it } from 'vitest';
import { ANTHROPIC_HEADERS, BEDROCK_HEADERS, OPENAI_HEADERS, openAIDuration, passedHeaders } from '../../../../../src/features/models/providers/shared/upstream-headers.js';

describe('upstream headers', () => {
  it('writes durations as OpenAI does', () => {
    expect([20, 6000, 90_000, 7_200_000].map(openAIDuration)).toEqual(['20ms', '6s', '1m30s', '2h0m0s']);
  });

  it('passes only the contract headers, renamed from each provider own', () => {
    expect(passedHeaders(OPENAI_HEADERS, { 'x-request-id': 'r', 'openai-organization': 'o', 'x-ratelimit-limit-tokens': '10', 'set-cookie': ['a'] })).toEqual({
      'x-request-id': 'r',
      'x-ratelimit-limit-tokens': '10',
    });
    expect(passedHeaders(ANTHROPIC_HEADERS, { 'request-id': 'req_1', 'anthropic-ratelimit-requests-reset': '12', 'anthropic-ratelimit-input-tokens-limit': '9' })).toEqual({
      'x-request-id': 'req_1',
      'x-ratelimit-reset-requests': '12s',
      'x-ratelimit-limit-tokens': '9',
    });
    expect(passedHeaders(BEDROCK_HEADERS, { 'x-amzn-requestid': 'abc', 'x-amzn-errortype': 'X' })).toEqual({ 'x-request-id': 'abc' });
  });

  it('drops values that could split a header', () => {
    expect(passedHeaders(OPENAI_HEADERS, { 'x-request-id': 'a\r\nset-cookie: x' })).toEqual({});
  });
});
