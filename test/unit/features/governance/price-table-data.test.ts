import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../../../src/features/governance/prices/cost.js';
import { PriceTable } from '../../../../src/features/governance/prices/price-table.js';
import { NO_USAGE } from '../../../../src/features/governance/prices/usage-classes.js';
import { PRICES_DIR } from '../../../../src/kernel/paths.js';

/** Every supported provider that publishes prices (contract §2 less the self-hosted ollama and vllm), and the hosts its prices may be read from. */
const PROVIDER_HOSTS: Record<string, string[]> = {
  openai: ['developers.openai.com'],
  'azure-openai': ['azure.microsoft.com'],
  anthropic: ['platform.claude.com'],
  google: ['ai.google.dev'],
  'vertex-ai': ['cloud.google.com'],
  bedrock: ['aws.amazon.com'],
  cohere: ['cohere.com'],
  'mistral-ai': ['mistral.ai'],
  groq: ['groq.com'],
  'together-ai': ['www.together.ai'],
  'fireworks-ai': ['docs.fireworks.ai'],
  deepseek: ['api-docs.deepseek.com'],
  'x-ai': ['docs.x.ai'],
  'perplexity-ai': ['docs.perplexity.ai'],
  openrouter: ['openrouter.ai'],
};

/** Dollars per million tokens → picodollars per token. */
const perMillion = (usd: number) => BigInt(Math.round(usd * 1_000_000));

const { table, problems } = PriceTable.read();

describe('the shipped price table: coverage', () => {
  it('reads with no problem', () => {
    expect(problems).toEqual([]);
  });

  it.each(Object.keys(PROVIDER_HOSTS))('has a file for %s with entries read from its own pages', (provider) => {
    expect(existsSync(join(PRICES_DIR, `${provider}.yaml`))).toBe(true);
    const models = [...table.models(provider)];
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      const source = table.lookup(provider, model)!.source;
      const host = new URL(source.split(' ')[0]!).host;
      expect(PROVIDER_HOSTS[provider], `${provider}/${model}: ${source}`).toContain(host);
    }
  });

  it('ships no table for the self-hosted providers', () => {
    expect([...table.providers()].sort()).toEqual(Object.keys(PROVIDER_HOSTS).sort());
  });
});

describe('the shipped price table: well-known models at their published prices', () => {
  it('anthropic claude-sonnet-4-5: $3 / $15, cache write $3.75, cache read $0.30, the 200K tier, batch half price', () => {
    const p = table.lookup('anthropic', 'claude-sonnet-4-5')!;
    expect(p).toMatchObject({ input: perMillion(3), output: perMillion(15), cacheWrite: perMillion(3.75), cacheRead: perMillion(0.3), batchDiscountPpm: 500_000n });
    expect(p.tiers).toEqual([{ aboveInputTokens: 200_000, prices: { input: perMillion(6), output: perMillion(22.5), cacheWrite: perMillion(7.5), cacheRead: perMillion(0.6) } }]);
    expect(table.lookup('anthropic', 'claude-sonnet-4-5-20250929')).toMatchObject({ input: perMillion(3), output: perMillion(15) });
  });

  it('anthropic claude-haiku-5-5: $0.10 / $0.50 up to 100K prompt tokens, $0.50 / $2.50 above', () => {
    const p = table.lookup('anthropic', 'claude-haiku-5-5')!;
    expect(p).toMatchObject({ input: perMillion(0.1), output: perMillion(0.5), cacheRead: perMillion(0.01) });
    const small = costOf(p, { ...NO_USAGE, input: 100_000, output: 1_000 })!;
    const large = costOf(p, { ...NO_USAGE, input: 100_001, output: 1_000 })!;
    expect(small.pico).toBe(100_000n * perMillion(0.1) + 1_000n * perMillion(0.5));
    expect(large.pico).toBe(100_001n * perMillion(0.5) + 1_000n * perMillion(2.5));
  });

  it('openai gpt-4.1-mini, gpt-6.2-sol (272K tier), whisper-1 per second, tts-1 per character', () => {
    expect(table.lookup('openai', 'gpt-4.1-mini')).toMatchObject({ input: perMillion(0.4), cacheRead: perMillion(0.1), output: perMillion(1.6), batchDiscountPpm: 500_000n });
    const sol = table.lookup('openai', 'gpt-6.2-sol')!;
    expect(sol).toMatchObject({ input: perMillion(2), cacheRead: perMillion(0.1), cacheWrite: perMillion(2.5), output: perMillion(10) });
    expect(sol.tiers[0]).toEqual({ aboveInputTokens: 272_000, prices: { input: perMillion(4), cacheRead: perMillion(0.2), cacheWrite: perMillion(5), output: perMillion(15) } });
    expect(table.lookup('openai', 'whisper-1')?.perAudioSecond).toBe(100_000_000n); // $0.006 a minute
    expect(table.lookup('openai', 'tts-1')?.perCharacter).toBe(perMillion(15)); // $15 per million characters
  });

  it('google gemini-2.5-pro: $1.25 / $10 up to 200K prompt tokens, $2.50 / $15 above, for the whole request', () => {
    const p = table.lookup('google', 'gemini-2.5-pro')!;
    expect(p).toMatchObject({ input: perMillion(1.25), output: perMillion(10), cacheRead: perMillion(0.125) });
    const cost = costOf(p, { ...NO_USAGE, input: 150_000, cacheRead: 60_000, output: 2_000 })!;
    expect(cost.pico).toBe(150_000n * perMillion(2.5) + 60_000n * perMillion(0.25) + 2_000n * perMillion(15));
    expect(table.lookup('google', 'gemini-2.5-flash')).toMatchObject({ input: perMillion(0.3), inputAudio: perMillion(1), output: perMillion(2.5) });
  });

  it('bedrock: a global Claude profile at the list price, a geographic one 10% dearer', () => {
    expect(table.lookup('bedrock', 'global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({ input: perMillion(3), output: perMillion(15) });
    expect(table.lookup('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({ input: perMillion(3.3), output: perMillion(16.5) });
    expect(table.lookup('bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({ cacheWrite: perMillion(4.125), cacheRead: perMillion(0.33) });
  });

  it('deepseek at its peak rate, perplexity reasoning priced apart, fireworks gpt-oss cached input', () => {
    expect(table.lookup('deepseek', 'deepseek-flash')).toMatchObject({ input: perMillion(0.3), cacheRead: perMillion(0.006), output: perMillion(1.2) });
    expect(table.lookup('perplexity-ai', 'sonar-deep-research')).toMatchObject({ input: perMillion(2), output: perMillion(8), reasoning: perMillion(3) });
    expect(table.lookup('fireworks-ai', 'accounts/fireworks/models/gpt-oss-120b')).toMatchObject({
      input: perMillion(0.15),
      cacheRead: perMillion(0.015),
      output: perMillion(0.6),
    });
  });
});
