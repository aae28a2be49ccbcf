import type { PriceEntry } from '../../../generated/governance/price-table.js';
import type { PriceOverride } from '../../../generated/governance/catalogue-model.js';
import type { ModelPrice } from './cost.js';
import { compilePrice, type PriceProblem, type PriceTable } from './price-table.js';

/** A compiled price in picodollars as a decimal string of US dollars per unit ("0.0000025"). */
export function decimalFromPico(pico: bigint): string {
  const whole = pico / 1_000_000_000_000n;
  const fraction = (pico % 1_000_000_000_000n).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** A price as GET /v1/models shows it: US dollars per unit as decimal strings, and its source. */
export function priceView(price: ModelPrice): Record<string, string> {
  const out: Record<string, string> = {};
  const fields: [string, bigint | undefined][] = [
    ['input', price.input],
    ['output', price.output],
    ['cache_read', price.cacheRead],
    ['cache_write', price.cacheWrite],
    ['reasoning', price.reasoning],
    ['input_audio', price.inputAudio],
    ['output_audio', price.outputAudio],
    ['per_image', price.perImage],
    ['per_audio_second', price.perAudioSecond],
    ['per_character', price.perCharacter],
  ];
  for (const [name, value] of fields) if (value !== undefined) out[name] = decimalFromPico(value);
  out.source = price.source;
  return out;
}

/**
 * The price of a request's model: the catalogue model's own `price` (models.<name>.price)
 * when it sets one, else the shipped table's price of (provider, model). Overrides are compiled
 * once, at start-up.
 */
export class PriceResolver {
  private readonly overrides = new Map<string, ModelPrice>();

  /** Throws nothing: problems of the overrides are returned, each naming models.<name>.price.<field>. */
  constructor(
    private readonly table: PriceTable | undefined,
    overrides: Iterable<[string, PriceOverride]>,
    problems: string[] = [],
  ) {
    for (const [name, override] of overrides) {
      const found: PriceProblem[] = [];
      const price = compilePrice(override as PriceEntry, `models.${name}.price`, `models.${name}.price`, found);
      for (const p of found) problems.push(`${p.path}: ${p.message}`);
      if (!found.length) this.overrides.set(name, price);
    }
  }

  /** The price of catalogue model `catalogueModel` (its entry name; undefined outside the catalogue) served by `provider` as `model`. */
  priceOf(catalogueModel: string | undefined, provider: string, model: string): ModelPrice | undefined {
    if (catalogueModel !== undefined) {
      const own = this.overrides.get(catalogueModel);
      if (own) return own;
    }
    return this.table?.lookup(provider, model);
  }
}
