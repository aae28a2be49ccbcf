import { badRequest } from '../../../../contract/errors/gateway-error.js';

/** The texts of an OpenAI embeddings request (a string or a list of strings). */
export function embeddingInputs(body: Record<string, unknown>, provider: string): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return input as string[];
  throw badRequest(`${provider} embeds text only: input must be a string or a list of strings (not token ids).`, 'input');
}

/** One vector as OpenAI writes it: a list of floats, or base64 of little-endian float32 when asked. */
function encodeVector(vector: number[], format: unknown): number[] | string {
  if (format !== 'base64') return vector;
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/** The OpenAI embeddings list object. */
export function embeddingList(vectors: number[][], model: string, promptTokens: number, encodingFormat: unknown) {
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encodeVector(vector, encodingFormat) })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
