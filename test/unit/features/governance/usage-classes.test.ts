import { describe, expect, it } from 'vitest';
import { NO_USAGE, usageClasses } from '../../../../src/features/governance/prices/usage-classes.js';

describe('usageClasses', () => {
  it('splits OpenAI chat usage so cached and reasoning tokens are counted once', () => {
    const u = usageClasses({
      prompt_tokens: 2006,
      completion_tokens: 300,
      total_tokens: 2306,
      prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 192, audio_tokens: 0 },
    });
    expect(u).toEqual({ ...NO_USAGE, input: 86, cacheRead: 1920, output: 108, reasoning: 192 });
  });

  it('reads the Responses API usage', () => {
    const u = usageClasses({ input_tokens: 100, input_tokens_details: { cached_tokens: 40 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 } });
    expect(u).toEqual({ ...NO_USAGE, input: 60, cacheRead: 40, output: 30, reasoning: 20 });
  });

  it('reads Anthropic usage, whose input excludes both cache classes', () => {
    const u = usageClasses({ input_tokens: 12, cache_creation_input_tokens: 1500, cache_read_input_tokens: 3000, output_tokens: 80 });
    expect(u).toEqual({ ...NO_USAGE, input: 12, cacheWrite: 1500, cacheRead: 3000, output: 80 });
  });

  it('reads Gemini usageMetadata, thoughts apart from candidates', () => {
    const u = usageClasses({ promptTokenCount: 1000, cachedContentTokenCount: 600, candidatesTokenCount: 40, thoughtsTokenCount: 300, totalTokenCount: 1340 });
    expect(u).toEqual({ ...NO_USAGE, input: 400, cacheRead: 600, output: 40, reasoning: 300 });
  });

  it('reads Bedrock Converse usage', () => {
    const u = usageClasses({ inputTokens: 10, outputTokens: 20, totalTokens: 30, cacheReadInputTokens: 5, cacheWriteInputTokens: 7 });
    expect(u).toEqual({ ...NO_USAGE, input: 10, output: 20, cacheRead: 5, cacheWrite: 7 });
  });

  it('reads Cohere billed units', () => {
    expect(usageClasses({ billed_units: { input_tokens: 9, output_tokens: 3 }, tokens: { input_tokens: 70, output_tokens: 3 } })).toEqual({ ...NO_USAGE, input: 9, output: 3 });
  });

  it('never counts below zero, and reads nothing from junk', () => {
    expect(usageClasses({ prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 9 } }).input).toBe(0);
    expect(usageClasses({ prompt_tokens: 'x', completion_tokens: -3 })).toEqual(NO_USAGE);
    expect(usageClasses(null)).toEqual(NO_USAGE);
    expect(usageClasses('usage')).toEqual(NO_USAGE);
  });
});
