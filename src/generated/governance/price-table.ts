/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/price-table.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * One provider's prices in the shipped price table (prices/<provider>.yaml). Every price is US dollars per single unit (per token, per image, per second, per character), written as a decimal string so that no float rounding creeps in: $2.50 per million tokens is "0.0000025".
 */
export interface PriceTableFile {
  /**
   * The provider identifier (contract §2) these prices are for.
   */
  provider: string;
  /**
   * Prices by the model name the provider's API takes.
   */
  models: {
    [k: string]: PriceEntry;
  };
}
/**
 * One model's prices, dated and with the public page they were read from.
 */
export interface PriceEntry {
  /**
   * Per prompt token read neither from nor into a cache.
   */
  input?: string;
  /**
   * Per generated token.
   */
  output?: string;
  /**
   * Per prompt token read from the provider's prompt cache.
   */
  cache_read?: string;
  /**
   * Per prompt token written into the provider's prompt cache (its default lifetime).
   */
  cache_write?: string;
  /**
   * Per reasoning token where the provider prices them apart from output.
   */
  reasoning?: string;
  /**
   * Per audio prompt token.
   */
  input_audio?: string;
  /**
   * Per generated audio token.
   */
  output_audio?: string;
  /**
   * When the price was read from its source (YYYY-MM-DD).
   */
  date: string;
  /**
   * The public page the price comes from.
   */
  source: string;
  /**
   * Per generated image (the default size and quality).
   */
  per_image?: string;
  /**
   * Per second of audio sent (transcription, translation).
   */
  per_audio_second?: string;
  /**
   * Per character of input text (speech synthesis).
   */
  per_character?: string;
  /**
   * Share taken off every token price for requests run through a batch (0.5: half price).
   */
  batch_discount?: string;
  /**
   * Long-context tiers: where a request's prompt is larger than above_input_tokens, the tier's prices replace the base prices for the whole request (the highest tier that applies wins).
   */
  tiers?: PriceTier[];
}
export interface PriceTier {
  /**
   * The prompt size (tokens of every input class) above which this tier's prices apply.
   */
  above_input_tokens: number;
  /**
   * Per prompt token read neither from nor into a cache.
   */
  input?: string;
  /**
   * Per generated token.
   */
  output?: string;
  /**
   * Per prompt token read from the provider's prompt cache.
   */
  cache_read?: string;
  /**
   * Per prompt token written into the provider's prompt cache (its default lifetime).
   */
  cache_write?: string;
  /**
   * Per reasoning token where the provider prices them apart from output.
   */
  reasoning?: string;
  /**
   * Per audio prompt token.
   */
  input_audio?: string;
  /**
   * Per generated audio token.
   */
  output_audio?: string;
}
