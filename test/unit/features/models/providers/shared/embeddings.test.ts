import { describe, expect, it } from 'vitest';
import { embeddingInputs } from '../../../../../../src/features/models/providers/shared/embeddings.js';
import { GatewayError } from '../../../../../../src/contract/errors/gateway-error.js';

describe('embeddingInputs (providers that embed text only)', () => {
  it('takes a string or a list of strings', () => {
    expect(embeddingInputs({ input: 'a' }, 'cohere')).toEqual(['a']);
    expect(embeddingInputs({ input: ['a', 'b'] }, 'cohere')).toEqual(['a', 'b']);
  });

  it("refuses token ids, which OpenAI's schema allows, with a 422 naming input and the provider", () => {
    for (const input of [
      [1, 2, 3],
      [[1, 2], [3]],
    ]) {
      let err: GatewayError | undefined;
      try {
        embeddingInputs({ input }, 'cohere');
      } catch (e) {
        err = e as GatewayError;
      }
      expect(err).toBeInstanceOf(GatewayError);
      expect({ status: err!.status, code: err!.code, param: err!.param }).toEqual({ status: 422, code: 'semantic_error', param: 'input' });
      expect(err!.message).toMatch(/^cohere embeds text only/);
    }
  });
});
