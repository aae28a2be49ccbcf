/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/governance/catalogue-model.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * A model of the catalogue (models.<public name>): a routing config of routing.schema.json (targets with provider, model, credential, optional base_url, strategy, retries; validated against it with these three fields set apart) plus the fields below. A name ending in /* ("openai/*") routes every model of a provider: the part after the slash is the model.
 */
export interface CatalogueModel {
  price?: PriceOverride;
  /**
   * Tokens the model reads at most (prompt and output).
   */
  context_window?: number;
  /**
   * Tokens the model writes at most: the output a budget reserves when the request sets no max_tokens.
   */
  max_output_tokens?: number;
  description?: string;
  [k: string]: unknown;
}
/**
 * A catalogue model's own price (models.<name>.price), replacing the shipped table's: the same fields, date and source optional.
 */
export interface PriceOverride {
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
  date?: string;
  /**
   * Where the price comes from (shown in the ledger's price source).
   */
  source?: string;
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
