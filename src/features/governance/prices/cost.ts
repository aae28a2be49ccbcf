import { microsFromPico, microsFromSafePico } from './money.js';
import type { TokenUsage } from './usage-classes.js';

/** Per-token prices of one tier, in picodollars; a class with no price of its own falls back as priceOf says. */
export interface TokenPrices {
  input?: bigint;
  output?: bigint;
  cacheRead?: bigint;
  cacheWrite?: bigint;
  reasoning?: bigint;
  inputAudio?: bigint;
  outputAudio?: bigint;
}

/** One model's compiled price: picodollars per unit. */
export interface ModelPrice extends TokenPrices {
  perImage?: bigint;
  perAudioSecond?: bigint;
  perCharacter?: bigint;
  /** Share taken off for batch requests, in parts per million. */
  batchDiscountPpm?: bigint;
  /** Long-context tiers, highest threshold first. */
  tiers: readonly { aboveInputTokens: number; prices: TokenPrices }[];
  /** Where the price came from: the shipped table (with its date and page) or the operator's config. */
  source: string;
}

export interface CostOptions {
  /** The request ran through a batch: the batch discount applies. */
  batch?: boolean;
}

/** What a request cost: whole microdollars (rounded up once, from the exact picodollar sum). */
export interface Cost {
  micros: number;
  pico: bigint;
}

const PPM = 1_000_000n;

type Fallback = { [K in keyof TokenPrices]-?: readonly (keyof TokenPrices)[] };
/** Where a class with no price of its own takes one: cached and audio input at the input price, reasoning and audio output at the output price. */
const FALLBACK: Fallback = {
  input: ['input'],
  output: ['output'],
  cacheRead: ['cacheRead', 'input'],
  cacheWrite: ['cacheWrite', 'input'],
  reasoning: ['reasoning', 'output'],
  inputAudio: ['inputAudio', 'input'],
  outputAudio: ['outputAudio', 'output'],
};

const USAGE_OF: Record<keyof TokenPrices, keyof TokenUsage> = {
  input: 'input',
  output: 'output',
  cacheRead: 'cacheRead',
  cacheWrite: 'cacheWrite',
  reasoning: 'reasoning',
  inputAudio: 'inputAudio',
  outputAudio: 'outputAudio',
};

/** The prompt's size for tier selection: every input class. */
function promptSize(usage: TokenUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.inputAudio;
}

/** The token classes, in one array made once (costOf runs twice per metered request). */
const TOKEN_CLASSES = Object.keys(USAGE_OF) as (keyof TokenPrices)[];

/** The long-context tier whose threshold a prompt of `size` passes (highest first), if any. */
function tierOf(price: ModelPrice, size: number): TokenPrices | undefined {
  for (const t of price.tiers) if (size > t.aboveInputTokens) return t.prices;
  return undefined;
}

function unitPrice(cls: keyof TokenPrices, tier: TokenPrices | undefined, base: ModelPrice): bigint | undefined {
  for (const key of FALLBACK[cls]) {
    const price = tier?.[key] ?? base[key];
    if (price !== undefined) return price;
  }
  return undefined;
}

/**
 * A sum of picodollars, exact: kept in a Number while every term and the sum are safe integers
 * (a request of a million tokens at $100 per million is 10^14: far below 2^53), in BigInt from
 * the first term that might not be. Most requests cost no BigInt arithmetic at all.
 */
class PicoSum {
  small = 0;
  big: bigint | undefined;

  add(count: number, unit: bigint): void {
    if (this.big === undefined) {
      const term = count * Number(unit);
      if (Number.isSafeInteger(count) && Number.isSafeInteger(term) && Number.isSafeInteger(this.small + term)) {
        this.small += term;
        return;
      }
      this.big = BigInt(this.small);
    }
    this.big += BigInt(count) * unit;
  }

  cost(batchDiscountPpm?: bigint): Cost {
    if (this.big === undefined && !batchDiscountPpm) return { pico: BigInt(this.small), micros: microsFromSafePico(this.small) };
    let pico = this.big ?? BigInt(this.small);
    if (batchDiscountPpm) pico = (pico * (PPM - batchDiscountPpm)) / PPM;
    return { pico, micros: microsFromPico(pico) };
  }
}

/**
 * The one cost function: usage × price. Each token class is priced once (classes are disjoint,
 * see usageClasses); the long-context tier whose threshold the prompt passes replaces the base
 * prices for the whole request; the batch discount comes off the total. Undefined when the
 * request used a class the price does not cover (the model is unpriced for this request).
 */
export function costOf(price: ModelPrice, usage: TokenUsage, options: CostOptions = {}): Cost | undefined {
  const tier = tierOf(price, promptSize(usage));
  const sum = new PicoSum();
  for (const cls of TOKEN_CLASSES) {
    const n = usage[USAGE_OF[cls]];
    if (n === 0) continue;
    const unit = unitPrice(cls, tier, price);
    if (unit === undefined) return undefined;
    sum.add(n, unit);
  }
  if (usage.images !== 0) {
    if (price.perImage === undefined) return undefined;
    sum.add(usage.images, price.perImage);
  }
  if (usage.audioSeconds !== 0) {
    if (price.perAudioSecond === undefined) return undefined;
    sum.add(usage.audioSeconds, price.perAudioSecond);
  }
  if (usage.characters !== 0) {
    if (price.perCharacter === undefined) return undefined;
    sum.add(usage.characters, price.perCharacter);
  }
  return sum.cost(options.batch ? price.batchDiscountPpm : undefined);
}

/** Units a request asks for up front, priced per unit: images to make, characters to speak. */
export interface WorstCaseUnits {
  images?: number;
  characters?: number;
}

/**
 * The most a request can cost before it runs (what a budget reserves): its prompt at the input
 * price (tier included), `maxOutputTokens` at the dearer of the output and reasoning prices, and
 * the images and characters it asks for at their unit prices. A model priced per unit (an image,
 * a character, a second of audio) does not bill its prompt in tokens: without an input price its
 * prompt adds nothing. Undefined where a class the request will use has no price (unpriced).
 * What only the answer tells (seconds of audio transcribed) is not reserved: it is settled.
 */
export function worstCaseCost(price: ModelPrice, promptTokens: number, maxOutputTokens: number, units: WorstCaseUnits = {}): Cost | undefined {
  const tier = tierOf(price, promptTokens);
  const perUnit = price.perImage !== undefined || price.perCharacter !== undefined || price.perAudioSecond !== undefined;
  const sum = new PicoSum();
  if (promptTokens > 0) {
    const input = unitPrice('input', tier, price);
    if (input !== undefined) sum.add(promptTokens, input);
    else if (!perUnit) return undefined;
  }
  if (maxOutputTokens > 0) {
    const output = unitPrice('output', tier, price);
    const reasoning = unitPrice('reasoning', tier, price);
    const dearest = output === undefined ? reasoning : reasoning === undefined || output > reasoning ? output : reasoning;
    if (dearest === undefined) return undefined;
    sum.add(maxOutputTokens, dearest);
  }
  const images = units.images ?? 0;
  if (images > 0 && price.perImage !== undefined) sum.add(images, price.perImage);
  const characters = units.characters ?? 0;
  if (characters > 0) {
    if (price.perCharacter !== undefined) sum.add(characters, price.perCharacter);
    else if (unitPrice('input', tier, price) === undefined) return undefined;
  }
  if (images > 0 && price.perImage === undefined && maxOutputTokens === 0) return undefined;
  return sum.cost();
}
