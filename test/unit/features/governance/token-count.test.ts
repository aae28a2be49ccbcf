import { describe, expect, it } from 'vitest';
import { countPromptTokens, countText, loadTokenizer, tokenizerSettled } from '../../../../src/features/governance/metering/token-count.js';

/**
 * The tokenizer loads when a metered stream first needs it (not at start): until its load has
 * ended, text is counted at one token per 3 characters; from then on by BPE (cl100k_base).
 */
describe('token counting', () => {
  it('counts at one token per 3 characters until the tokenizer is loaded, then by BPE', async () => {
    expect(tokenizerSettled()).toBe(false);
    expect(countText('hello world')).toBe(4);
    expect(countText('')).toBe(0);
    const loading = loadTokenizer();
    // one load, however many ask
    expect(loadTokenizer()).toBe(loading);
    await loading;
    expect(tokenizerSettled()).toBe(true);
    expect(countText('hello world')).toBe(2);
    // chat framing: 4 a message and 3 for the reply, plus the texts (roles are not counted as text)
    expect(countPromptTokens({ messages: [{ role: 'user', content: 'hello world' }] })).toBe(4 + 3 + 2);
  });
});
