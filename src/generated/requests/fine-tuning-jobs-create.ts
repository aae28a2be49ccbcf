/* eslint-disable */
/**
 * DO NOT EDIT: generated from schema/requests/fine-tuning-jobs-create.schema.json by scripts/generate-types.mjs.
 * Edit the schema and run `npm run gen:types`; `npm test` fails when they drift apart.
 */

/**
 * POST /v1/fine_tuning/jobs.
 */
export interface FineTuningJobCreateRequest {
  training_file: string;
  model: string;
  validation_file?: string | null;
  suffix?: string | null;
  seed?: number;
  hyperparameters?: {
    n_epochs?: number | 'auto';
    batch_size?: number | 'auto';
    learning_rate_multiplier?: number | 'auto';
  };
  [k: string]: unknown;
}
