/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/providers/provider-data.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * One OpenAI-compatible provider as data (providers/<id>.yaml), read by the one interpreter in src/features/models/providers/openai-compatible/provider-data.ts.
 */
export interface ProviderData {
  $schema?: string;
  /**
   * The provider id (x-gateway-provider, providers.<id>); the file is named <id>.yaml.
   */
  id: string;
  /**
   * The provider's name as people write it.
   */
  name: string;
  /**
   * The public API documentation the facts of this file were read from.
   */
  docs: string;
  /**
   * hosted: a service on the internet (a key is required unless auth.required says otherwise); self-hosted: a server the operator runs (no key needed).
   */
  kind: 'hosted' | 'self-hosted';
  /**
   * The default base URL, as the provider's OpenAI SDK base URL (the version path included). {field} placeholders are filled from the option of that name (options[]).
   */
  base_url: string;
  /**
   * How the provider key is sent upstream.
   */
  auth: {
    /**
     * The header name (lower case).
     */
    header: string;
    /**
     * Written before the key (e.g. 'Bearer ').
     */
    prefix?: string;
    /**
     * Whether a request without a key is refused (default: true for hosted, false for self-hosted).
     */
    required?: boolean;
  };
  /**
   * Fixed headers sent on every request (API version headers and the like).
   */
  headers?: {
    [k: string]: string;
  };
  /**
   * The gateway operations served with OpenAI's paths and shapes (families: audio, files, batches, fine_tuning, responses; openai-api: all of OpenAI's).
   *
   * @minItems 1
   */
  operations: [
    (
      | 'chat.completions'
      | 'completions'
      | 'embeddings'
      | 'images.generations'
      | 'images.edits'
      | 'audio.speech'
      | 'audio.transcriptions'
      | 'audio.translations'
      | 'files.create'
      | 'files.list'
      | 'files.retrieve'
      | 'files.delete'
      | 'files.content'
      | 'batches.create'
      | 'batches.list'
      | 'batches.retrieve'
      | 'batches.cancel'
      | 'fine_tuning.jobs.create'
      | 'fine_tuning.jobs.list'
      | 'fine_tuning.jobs.retrieve'
      | 'fine_tuning.jobs.cancel'
      | 'fine_tuning.jobs.events'
      | 'models.list'
      | 'responses.create'
      | 'responses.retrieve'
      | 'responses.delete'
      | 'responses.cancel'
      | 'responses.input_items'
      | 'rerank'
      | 'moderations'
      | 'audio'
      | 'files'
      | 'batches'
      | 'fine_tuning'
      | 'responses'
      | 'openai-api'
    ),
    ...(
      | 'chat.completions'
      | 'completions'
      | 'embeddings'
      | 'images.generations'
      | 'images.edits'
      | 'audio.speech'
      | 'audio.transcriptions'
      | 'audio.translations'
      | 'files.create'
      | 'files.list'
      | 'files.retrieve'
      | 'files.delete'
      | 'files.content'
      | 'batches.create'
      | 'batches.list'
      | 'batches.retrieve'
      | 'batches.cancel'
      | 'fine_tuning.jobs.create'
      | 'fine_tuning.jobs.list'
      | 'fine_tuning.jobs.retrieve'
      | 'fine_tuning.jobs.cancel'
      | 'fine_tuning.jobs.events'
      | 'models.list'
      | 'responses.create'
      | 'responses.retrieve'
      | 'responses.delete'
      | 'responses.cancel'
      | 'responses.input_items'
      | 'rerank'
      | 'moderations'
      | 'audio'
      | 'files'
      | 'batches'
      | 'fine_tuning'
      | 'responses'
      | 'openai-api'
    )[]
  ];
  /**
   * Paths that differ from OpenAI's, by operation (appended to the base URL).
   */
  paths?: {
    [k: string]: string;
  };
  /**
   * Request fields of chat, completions, embeddings and rerank requests the provider names differently or does not take.
   */
  params?: {
    /**
     * OpenAI field -> the provider's field.
     */
    rename?: {
      [k: string]: string;
    };
    /**
     * Fields not sent.
     */
    drop?: string[];
  };
  /**
   * Bounds on numeric request fields the provider documents: clamped when clamp is true, else a 400 naming the field.
   */
  constraints?: {
    [k: string]: {
      min?: number;
      max?: number;
      clamp?: boolean;
    };
  };
  /**
   * How the model's reasoning comes back and goes back.
   */
  reasoning?: {
    /**
     * The answer field holding reasoning (reasoning is renamed reasoning_content).
     */
    field?: 'reasoning_content' | 'reasoning';
    /**
     * The provider takes reasoning_content back on assistant messages.
     */
    takes_back?: boolean;
  };
  /**
   * Usage fields the provider names differently: its name -> OpenAI's (prompt_tokens, completion_tokens, total_tokens).
   */
  usage?: {
    rename?: {
      [k: string]: 'prompt_tokens' | 'completion_tokens' | 'total_tokens';
    };
  };
  /**
   * Where the model list is (appended to the base URL); absent when the provider has none.
   */
  models_endpoint?: string;
  /**
   * Where prices come from: a file of prices/ (prices/<id>.yaml), or the provider's pricing page, or none (self-hosted).
   */
  prices: string;
  /**
   * openai: x-ratelimit-* as they are; bare: x-ratelimit-* without the -requests/-tokens names (Together's).
   */
  rate_limit_headers?: 'openai' | 'bare';
  /**
   * Settings the provider's address is built from: sent as x-gateway-<field with dashes> or set as providers.<id>.<field>.
   */
  options?: {
    field: string;
    /**
     * What a value must match (anchored).
     */
    pattern: string;
    /**
     * What the value is, for the error message.
     */
    what: string;
    /**
     * A credential: masked in answers and logs.
     */
    secret?: boolean;
    default?: string;
  }[];
  /**
   * A translation kept in code, by the provider folder that holds it (operations that are not OpenAI's shape).
   */
  code?: 'together-ai' | 'fireworks-ai' | 'mistral-ai' | 'voyage';
  /**
   * Quirks and limits worth knowing (shown in the README).
   */
  notes?: string;
}
