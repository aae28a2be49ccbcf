import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validatorFor, instancePathToKey } from '../../../kernel/config/schema-validator.js';
import { PRICES_DIR } from '../../../kernel/paths.js';
import type { PriceEntry, PriceTableFile } from '../../../generated/governance/price-table.js';
import type { ModelPrice, TokenPrices } from './cost.js';
import { picoFromDecimal, ppmFromDecimal } from './money.js';

/** A problem found in the price table: the file and key path, and what is wrong. */
export interface PriceProblem {
  file: string;
  path: string;
  message: string;
}

/**
 * The most one token may cost: $0.001 ($1,000 per million tokens), far above any model's price.
 * A larger per-token price is taken as written per million by mistake.
 */
export const MAX_TOKEN_PICO = 1_000_000_000n;

const TOKEN_FIELDS = {
  input: 'input',
  output: 'output',
  cache_read: 'cacheRead',
  cache_write: 'cacheWrite',
  reasoning: 'reasoning',
  input_audio: 'inputAudio',
  output_audio: 'outputAudio',
} as const satisfies Record<string, keyof TokenPrices>;

function tokenPrices(entry: Partial<Record<keyof typeof TOKEN_FIELDS, string>>, at: string, problems: PriceProblem[], file: string): TokenPrices {
  const out: TokenPrices = {};
  for (const [field, key] of Object.entries(TOKEN_FIELDS) as [keyof typeof TOKEN_FIELDS, keyof TokenPrices][]) {
    const text = entry[field];
    if (text === undefined) continue;
    const pico = picoFromDecimal(text);
    if (pico === undefined) problems.push({ file, path: `${at}.${field}`, message: `not a decimal string of US dollars: ${text}` });
    else if (pico > MAX_TOKEN_PICO)
      problems.push({ file, path: `${at}.${field}`, message: `${text} USD per token is over $1,000 per million: prices are per token, not per million` });
    else out[key] = pico;
  }
  return out;
}

/** One entry of the table (or a catalogue override) compiled into picodollars; problems are pushed, not thrown. */
export function compilePrice(entry: PriceEntry, source: string, at: string, problems: PriceProblem[], file = ''): ModelPrice {
  const price: ModelPrice = { ...tokenPrices(entry, at, problems, file), tiers: [], source };
  if (entry.per_image !== undefined) price.perImage = picoFromDecimal(entry.per_image);
  if (entry.per_audio_second !== undefined) price.perAudioSecond = picoFromDecimal(entry.per_audio_second);
  if (entry.per_character !== undefined) price.perCharacter = picoFromDecimal(entry.per_character);
  if (entry.batch_discount !== undefined) price.batchDiscountPpm = ppmFromDecimal(entry.batch_discount);
  const tiers = (entry.tiers ?? []).map((tier, i) => ({ aboveInputTokens: tier.above_input_tokens, prices: tokenPrices(tier, `${at}.tiers[${i}]`, problems, file) }));
  price.tiers = tiers.sort((a, b) => b.aboveInputTokens - a.aboveInputTokens);
  const hasTokenPrice = Object.keys(TOKEN_FIELDS).some((f) => entry[f as keyof typeof TOKEN_FIELDS] !== undefined);
  if (!hasTokenPrice && price.perImage === undefined && price.perAudioSecond === undefined && price.perCharacter === undefined) {
    problems.push({ file, path: at, message: 'prices nothing: give input/output per token, per_image, per_audio_second or per_character' });
  }
  if (entry.cache_read !== undefined && entry.input !== undefined && price.cacheRead! > price.input!) {
    problems.push({ file, path: `${at}.cache_read`, message: 'a cache read costs more than plain input: check the units' });
  }
  return price;
}

/** The shipped price table: every model's price by provider and model name. */
export class PriceTable {
  private constructor(private readonly byProvider: ReadonlyMap<string, ReadonlyMap<string, ModelPrice>>) {}

  /** The price of `model` at `provider` (the name the provider's API takes), if the table has one. */
  lookup(provider: string, model: string): ModelPrice | undefined {
    return this.byProvider.get(provider)?.get(model);
  }

  /** Every priced model name of a provider (the names metrics may use as labels). */
  models(provider: string): Iterable<string> {
    return this.byProvider.get(provider)?.keys() ?? [];
  }

  providers(): Iterable<string> {
    return this.byProvider.keys();
  }

  /** Reads and checks every `<provider>.yaml` of `dir`: the table, and every problem found (shape, units, dates, sources). */
  static read(dir = PRICES_DIR): { table: PriceTable; problems: PriceProblem[] } {
    const problems: PriceProblem[] = [];
    const byProvider = new Map<string, Map<string, ModelPrice>>();
    const validate = validatorFor('governance/price-table.schema.json');
    for (const name of (existsSync(dir) ? readdirSync(dir) : []).filter((n) => n.endsWith('.yaml')).sort()) {
      let doc: unknown;
      try {
        doc = parse(readFileSync(join(dir, name), 'utf8'));
      } catch (err) {
        problems.push({ file: name, path: '', message: `not YAML: ${(err as Error).message}` });
        continue;
      }
      // A bad entry is reported and left out; the file's other entries are still read and checked.
      const badEntries = new Set<string>();
      if (!validate(doc)) {
        let fileBroken = false;
        for (const e of validate.errors ?? []) {
          problems.push({ file: name, path: instancePathToKey(e.instancePath), message: e.message ?? 'invalid' });
          const entry = /^\/models\/([^/]+)/.exec(e.instancePath)?.[1];
          if (entry === undefined) fileBroken = true;
          else badEntries.add(entry.replace(/~1/g, '/').replace(/~0/g, '~'));
        }
        if (fileBroken) continue;
      }
      const file = doc as PriceTableFile;
      if (name !== `${file.provider}.yaml`) problems.push({ file: name, path: 'provider', message: `the file of provider ${file.provider} must be named ${file.provider}.yaml` });
      const models = byProvider.get(file.provider) ?? new Map<string, ModelPrice>();
      for (const [model, entry] of Object.entries(file.models)) {
        if (badEntries.has(model)) continue;
        const at = `models.${model}`;
        if (Number.isNaN(Date.parse(entry.date))) problems.push({ file: name, path: `${at}.date`, message: `not a date: ${entry.date}` });
        models.set(model, compilePrice(entry, `${entry.source} (${entry.date})`, at, problems, name));
      }
      byProvider.set(file.provider, models);
    }
    return { table: new PriceTable(byProvider), problems };
  }
}
