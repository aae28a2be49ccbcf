import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costOf, worstCaseCost, type ModelPrice } from '../../../../src/features/governance/prices/cost.js';
import { NO_USAGE, usageClasses } from '../../../../src/features/governance/prices/usage-classes.js';
import { usageFrom as anthropicUsageFrom } from '../../../../src/features/models/providers/anthropic/finish.js';
import { usageFrom as bedrockUsageFrom } from '../../../../src/features/models/providers/bedrock/finish.js';
import { anthropicUsage } from '../../../../src/contract/anthropic/shapes.js';

const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures');

/** Every usage block (`usage`, `usageMetadata`) of a recorded answer or stream, merged in order: a stream's final word wins, as a reader of it would take it. */
function recordedUsage(file: string): Record<string, unknown> {
  const text = readFileSync(join(FIXTURES, file), 'utf8');
  const docs: unknown[] = file.endsWith('.chunks.txt')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '[DONE]')
        .map((line) => JSON.parse(line.slice(5)))
    : [JSON.parse(text)];
  const merged: Record<string, unknown> = {};
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'usage' || key === 'usageMetadata') && value && typeof value === 'object') Object.assign(merged, value);
      else walk(value);
    }
  };
  docs.forEach(walk);
  return merged;
}

/** Test prices per token: $3 / $15 per million, cache read $0.30, cache write $3.75 (in picodollars). */
const PRICE: ModelPrice = { input: 3_000_000n, output: 15_000_000n, cacheRead: 300_000n, cacheWrite: 3_750_000n, batchDiscountPpm: 500_000n, tiers: [], source: 'test' };
const cost = (file: string, price = PRICE, batch = false) => costOf(price, usageClasses(recordedUsage(file)), { batch })?.micros;

describe('the one cost function on recorded usage (golden)', () => {
  it('anthropic stream with cache write and cache read: each class at its own price once', () => {
    // 640 input × 3 + 120 written × 3.75 + 1024 read × 0.30 + 14 output × 15 = 2887.2 µ$ → 2888
    expect(cost('anthropic/thinking-final.chunks.txt')).toBe(2888);
  });

  it('the same anthropic usage translated to an OpenAI answer and back to Anthropic prices the same: cache writes stay apart', () => {
    const raw = recordedUsage('anthropic/thinking-final.chunks.txt');
    const openaiShaped = anthropicUsageFrom(raw);
    expect(openaiShaped.prompt_tokens_details?.cache_write_tokens).toBe(120);
    expect(costOf(PRICE, usageClasses(openaiShaped))?.micros).toBe(2888);
    expect(costOf(PRICE, usageClasses(anthropicUsage(openaiShaped)))?.micros).toBe(2888);
    // Bedrock's Converse usage, likewise
    const converse = bedrockUsageFrom({ inputTokens: 640, cacheWriteInputTokens: 120, cacheReadInputTokens: 1024, outputTokens: 14 });
    expect(costOf(PRICE, usageClasses(converse))?.micros).toBe(2888);
  });

  it('anthropic answer with a cache read', () => {
    // 412 × 3 + 128 × 0.30 + 96 × 15 = 2714.4 → 2715
    expect(cost('anthropic/tools.json')).toBe(2715);
  });

  it('OpenAI-shaped stream with cached and reasoning tokens (deepseek): reasoning once, as output', () => {
    // (120 − 64) × 3 + 64 × 0.30 + (60 − 40) × 15 + 40 × 15 = 1087.2 → 1088
    expect(cost('deepseek/reasoning.chunks.txt')).toBe(1088);
    expect(cost('deepseek/reasoning.json')).toBe(1088);
    // reasoning priced apart at $20 per million: 40 × 20 instead of 40 × 15
    expect(cost('deepseek/reasoning.json', { ...PRICE, reasoning: 20_000_000n })).toBe(1288);
  });

  it('openai stream with cached prompt tokens', () => {
    // (220 − 128) × 3 + 128 × 0.30 + 48 × 15 = 1034.4 → 1035
    expect(cost('openai/tools.chunks.txt')).toBe(1035);
  });

  it('gemini stream with thoughts and cached content', () => {
    // (12 − 4) × 3 + 4 × 0.30 + 1 × 15 + 87 thoughts × 15 = 1345.2 → 1346
    expect(cost('google/thinking.chunks.txt')).toBe(1346);
  });

  it('bedrock answer and event stream with a cache read', () => {
    // 300 × 3 + 500 × 0.30 + 90 × 15 = 2400
    expect(cost('bedrock/thinking.json')).toBe(2400);
    expect(cost('bedrock/thinking.events.json')).toBe(2400);
  });

  it('cohere billed units, and the batch discount', () => {
    // 97 × 3 + 41 × 15 = 906; half of it in a batch
    expect(cost('cohere/tools.json')).toBe(906);
    expect(cost('cohere/tools.json', PRICE, true)).toBe(453);
  });

  it('a class with no price of its own falls back: cache read at the input price, reasoning at output', () => {
    const plain: ModelPrice = { input: 3_000_000n, output: 15_000_000n, tiers: [], source: 'test' };
    // 412 × 3 + 128 × 3 + 96 × 15 = 3060
    expect(cost('anthropic/tools.json', plain)).toBe(3060);
  });

  it('a used class the price cannot cover makes the request unpriced', () => {
    const imagesOnly: ModelPrice = { perImage: 40_000_000_000n, tiers: [], source: 'test' };
    expect(cost('anthropic/tools.json', imagesOnly)).toBeUndefined();
    expect(costOf(imagesOnly, { ...NO_USAGE, images: 2 })?.micros).toBe(80_000);
  });

  it('a long-context tier replaces the base prices for the whole request', () => {
    const tiered: ModelPrice = { ...PRICE, tiers: [{ aboveInputTokens: 200_000, prices: { input: 6_000_000n, output: 22_500_000n } }] };
    expect(costOf(tiered, { ...NO_USAGE, input: 200_000, output: 10 })?.micros).toBe(600_150);
    // 200,001 input × 6 + 10 × 22.5 = 1,200,006 + 225
    expect(costOf(tiered, { ...NO_USAGE, input: 200_001, output: 10 })?.micros).toBe(1_200_231);
  });

  it('the worst case reserves the prompt and the whole output allowance at the dearer output price', () => {
    // 1000 × 3 + 500 × 20 (reasoning dearer than output)
    expect(worstCaseCost({ ...PRICE, reasoning: 20_000_000n }, 1000, 500)?.micros).toBe(13_000);
    expect(worstCaseCost({ perImage: 1n, tiers: [], source: 't' }, 10, 10)).toBeUndefined();
  });

  it('the worst case of input-only and per-unit models: embeddings, speech, images, transcriptions', () => {
    // an embedding model has no output price: its worst case is its prompt
    expect(worstCaseCost({ input: 20_000n, tiers: [], source: 't' }, 1000, 0)?.micros).toBe(20);
    // per character: the characters asked for; the prompt is not billed in tokens
    expect(worstCaseCost({ perCharacter: 15_000_000n, tiers: [], source: 't' }, 300, 0, { characters: 11 })?.micros).toBe(165);
    // per image: n images
    expect(worstCaseCost({ perImage: 40_000_000_000n, tiers: [], source: 't' }, 300, 0, { images: 2 })?.micros).toBe(80_000);
    // an image model priced in tokens: its output allowance, no per-image price needed
    expect(worstCaseCost({ input: 5_000_000n, output: 40_000_000n, tiers: [], source: 't' }, 100, 6240, { images: 1 })?.micros).toBe(250_100);
    // without either, unpriced
    expect(worstCaseCost({ input: 5_000_000n, tiers: [], source: 't' }, 100, 0, { images: 1 })).toBeUndefined();
    // per second of audio: nothing known before the answer (settled), but priced
    expect(worstCaseCost({ perAudioSecond: 100_000_000n, tiers: [], source: 't' }, 300, 0)?.micros).toBe(0);
    // a model with no price at all stays unpriced
    expect(worstCaseCost({ tiers: [], source: 't' }, 300, 0)).toBeUndefined();
  });

  it('sums exactly as BigInt arithmetic would, below 2^53 and far above it (fuzz)', () => {
    const unit = fc.option(fc.oneof(fc.bigInt({ min: 0n, max: 10_000_000_000n }), fc.bigInt({ min: 0n, max: 10n ** 20n })), { nil: undefined });
    const count = fc.oneof(fc.nat({ max: 2_000_000 }), fc.constant(0), fc.nat());
    const classes = ['input', 'cacheRead', 'cacheWrite', 'output', 'reasoning', 'inputAudio', 'outputAudio'] as const;
    fc.assert(
      fc.property(
        fc.record({ input: unit, output: unit, cacheRead: unit, cacheWrite: unit, reasoning: unit, inputAudio: unit, outputAudio: unit, perImage: unit }),
        fc.record({ input: count, cacheRead: count, cacheWrite: count, output: count, reasoning: count, inputAudio: count, outputAudio: count, images: count }),
        fc.option(fc.bigInt({ min: 1n, max: 1_000_000n }), { nil: undefined }),
        (prices, counts, discount) => {
          const price: ModelPrice = { ...prices, batchDiscountPpm: discount, tiers: [], source: 'fuzz' };
          const usage = { ...NO_USAGE, ...counts };
          // the reference: every class at its own price or its fallback's, in BigInt picodollars
          const fallback = { input: 'input', output: 'output', cacheRead: 'input', cacheWrite: 'input', reasoning: 'output', inputAudio: 'input', outputAudio: 'output' } as const;
          let pico = 0n;
          let priced = true;
          for (const cls of classes) {
            if (usage[cls] === 0) continue;
            const u = price[cls] ?? price[fallback[cls]];
            if (u === undefined) priced = false;
            else pico += BigInt(usage[cls]) * u;
          }
          if (usage.images !== 0) {
            if (price.perImage === undefined) priced = false;
            else pico += BigInt(usage.images) * price.perImage;
          }
          const got = costOf(price, usage, { batch: true });
          if (!priced) {
            expect(got).toBeUndefined();
            return;
          }
          if (discount) pico = (pico * (1_000_000n - discount)) / 1_000_000n;
          expect(got).toEqual({ pico, micros: pico <= 0n ? 0 : Number((pico + 999_999n) / 1_000_000n) });
          const worst = worstCaseCost(price, counts.input, counts.output);
          const out = [price.output, price.reasoning].filter((x): x is bigint => x !== undefined).sort((a, b) => (a < b ? 1 : -1))[0];
          if ((counts.input > 0 && price.input === undefined) || (counts.output > 0 && out === undefined)) {
            expect(worst).toBeUndefined();
            return;
          }
          const wPico = (counts.input > 0 ? BigInt(counts.input) * price.input! : 0n) + (counts.output > 0 ? BigInt(counts.output) * out! : 0n);
          expect(worst).toEqual({ pico: wPico, micros: wPico <= 0n ? 0 : Number((wPico + 999_999n) / 1_000_000n) });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
