import { describe, expect, it } from 'vitest';
import { makeServices } from '../../../../helpers/services.js';
import { PROVIDERS } from '../../../../../src/features/models/providers/provider-registry.js';
import type { ProviderCall } from '../../../../../src/features/models/providers/provider.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

/**
 * A translating provider's 2xx JSON answer without the member every answer of its kind has is
 * the upstream's bad answer (502 provider_error naming the provider), not an empty made-up
 * answer; the smallest legitimate answers still translate.
 */
const registry = makeServices({}).require(PROVIDERS);

function call(operation: string, model: string): ProviderCall {
  return {
    operation,
    body: { model, messages: [{ role: 'user', content: 'x' }], input: ['a'] },
    stream: false,
    target: { provider: 'test', options: {} },
    apiKey: 'k',
    params: {},
    query: new URLSearchParams(),
    headers: {},
    signal: new AbortController().signal,
  } as unknown as ProviderCall;
}

function translate(provider: string, operation: string, model: string, answer: unknown): unknown {
  const adapter = registry.get(provider)!.operations[operation as 'chat.completions']!;
  return adapter.response!(answer, call(operation, model));
}

describe('answers without their main member', () => {
  it.each([
    ['anthropic', 'chat.completions', 'claude-sonnet-4-5', 'a Messages object'],
    ['google', 'chat.completions', 'gemini-2.0-flash', 'a GenerateContent answer'],
    ['vertex-ai', 'chat.completions', 'gemini-2.0-flash', 'a GenerateContent answer'],
    ['bedrock', 'chat.completions', 'anthropic.claude-3-haiku-20240307-v1:0', 'a Converse answer'],
    ['cohere', 'chat.completions', 'command-r', 'a chat answer'],
    ['google', 'embeddings', 'text-embedding-004', 'an embedding answer'],
    ['vertex-ai', 'embeddings', 'text-embedding-005', 'a prediction answer'],
    ['cohere', 'embeddings', 'embed-english-v3.0', 'an embedding answer'],
    ['bedrock', 'embeddings', 'cohere.embed-english-v3', 'an embedding answer'],
    ['anthropic', 'models.list', '', 'a model list'],
  ])('%s %s answering {}: 502 provider_error', (provider, operation, model, what) => {
    let err: unknown;
    try {
      translate(provider, operation, model, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ status: 502, code: 'provider_error', provider, message: `${provider} sent an answer that is not ${what}.` });
  });

  it.each([
    ['anthropic', 'chat.completions', 'claude-sonnet-4-5', { content: [], stop_reason: 'end_turn' }],
    ['google', 'chat.completions', 'gemini-2.0-flash', { candidates: [] }],
    ['google', 'chat.completions', 'gemini-2.0-flash', { promptFeedback: { blockReason: 'SAFETY' } }],
    ['bedrock', 'chat.completions', 'anthropic.claude-3-haiku-20240307-v1:0', { output: { message: { role: 'assistant', content: [] } }, stopReason: 'end_turn' }],
    ['cohere', 'chat.completions', 'command-r', { id: 'x', finish_reason: 'COMPLETE', message: { role: 'assistant' } }],
    ['google', 'embeddings', 'text-embedding-004', { embeddings: [] }],
    ['vertex-ai', 'embeddings', 'text-embedding-005', { predictions: [] }],
    ['cohere', 'embeddings', 'embed-english-v3.0', { embeddings: { float: [] } }],
    ['anthropic', 'models.list', '', { data: [], has_more: false }],
  ])('%s %s: a legitimate answer with nothing in it still translates', (provider, operation, model, answer) => {
    expect(translate(provider, operation, model, answer)).toBeTypeOf('object');
  });
});
