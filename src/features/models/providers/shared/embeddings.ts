import { GatewayError, semanticError } from '../../../../contract/errors/gateway-error.js';
import type { ProviderCall } from '../provider.js';

/** The texts of an OpenAI embeddings request (a string or a list of strings); token ids, which OpenAI takes, are a 422. */
export function embeddingInputs(body: Record<string, unknown>, provider: string): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return input as string[];
  throw semanticError(`${provider} embeds text only: input must be a string or a list of strings (not token ids).`, 'input');
}

/** One vector as OpenAI writes it: a list of floats, or base64 of little-endian float32 when asked. */
function encodeVector(vector: number[], format: unknown): number[] | string {
  if (format !== 'base64') return vector;
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/** Whether a provider's vectors are what an embeddings answer holds: lists of numbers. */
function areVectors(vectors: unknown): vectors is number[][] {
  return Array.isArray(vectors) && vectors.every((v) => Array.isArray(v) && v.every((n) => typeof n === 'number'));
}

/**
 * The OpenAI embeddings list object of the vectors a provider answered (the request's model and
 * encoding_format); vectors that are not lists of numbers are the provider's bad answer (502).
 */
export function embeddingList(vectors: unknown, promptTokens: number, call: ProviderCall) {
  const provider = call.target.provider;
  if (!areVectors(vectors)) throw new GatewayError('provider_error', `${provider} sent embeddings that are not lists of numbers.`, { provider, retryable: true });
  const encodingFormat = call.body?.encoding_format;
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encodeVector(vector, encodingFormat) })),
    model: String(call.body?.model ?? ''),
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
