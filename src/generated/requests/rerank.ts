/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/rerank.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/rerank: Cohere's and Jina's shape (the documents ordered by relevance to the query).
 */
export interface RerankRequest {
  model: string;
  query: string;
  /**
   * The texts to rank: strings, or objects with a text field.
   *
   * @minItems 1
   * @maxItems 10000
   */
  documents: [
    (
      | string
      | {
          text: string;
          [k: string]: unknown;
        }
    ),
    ...(
      | string
      | {
          text: string;
          [k: string]: unknown;
        }
    )[]
  ];
  /**
   * How many of the best documents to return (default: all).
   */
  top_n?: number;
  /**
   * Whether each result carries its document's text.
   */
  return_documents?: boolean;
  /**
   * Longer documents are truncated to this many tokens (Cohere).
   */
  max_tokens_per_doc?: number;
  [k: string]: unknown;
}
