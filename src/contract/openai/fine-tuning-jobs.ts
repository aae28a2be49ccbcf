import { unixSeconds } from './files.js';
import { listBody } from './lists.js';
import { objectOf, objectsOf, type JsonObject } from '../json.js';

export type SpecJobStatus = 'created' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/**
 * The spec's job states from OpenAI's (and those provider translations produce): a job not
 * yet training (validating_files, queued) is `created`; paused counts as `running`.
 */
const STATUS: Record<string, SpecJobStatus> = {
  created: 'created',
  validating_files: 'created',
  queued: 'created',
  running: 'running',
  pausing: 'running',
  paused: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function specStatus(status: unknown): SpecJobStatus {
  return STATUS[String(status)] ?? 'running';
}

function hyper(value: unknown): unknown {
  return value === undefined || value === null ? 'auto' : value;
}

/**
 * The spec's fine-tuning job: `object` fine_tuning.job, spec status, hyperparameters each
 * defaulting to "auto", result_files an array, organization_id present (the provider id when
 * the provider has no organisation of its own), nulls for what is not set yet. Other fields
 * the provider sent stay.
 */
export function specJob(job: JsonObject, provider: string): Record<string, unknown> {
  const hp = objectOf(job.hyperparameters ?? objectOf(objectOf(job.method).supervised).hyperparameters);
  const status = specStatus(job.status);
  return {
    ...job,
    id: String(job.id),
    object: 'fine_tuning.job',
    model: job.model,
    created_at: unixSeconds(job.created_at) ?? 0,
    finished_at: unixSeconds(job.finished_at),
    fine_tuned_model: job.fine_tuned_model ?? null,
    organization_id: typeof job.organization_id === 'string' && job.organization_id ? job.organization_id : provider,
    result_files: Array.isArray(job.result_files) ? job.result_files : [],
    status,
    training_file: job.training_file ?? null,
    validation_file: job.validation_file ?? null,
    hyperparameters: {
      ...hp,
      n_epochs: hyper(hp.n_epochs),
      batch_size: hyper(hp.batch_size),
      learning_rate_multiplier: hyper(hp.learning_rate_multiplier),
    },
    trained_tokens: job.trained_tokens ?? null,
  };
}

export function specJobList(list: JsonObject, provider: string): Record<string, unknown> {
  const data = objectsOf(list.data).map((j) => specJob(j, provider));
  return { ...list, object: 'list', data, has_more: list.has_more === true };
}

/** OpenAI's event object for each item of an events list. */
export function specEvents(list: JsonObject): Record<string, unknown> {
  const data = objectsOf(list.data).map((e, i) => ({
    ...e,
    id: String(e.id ?? `ftevent-${i}`),
    object: 'fine_tuning.job.event',
    created_at: unixSeconds(e.created_at) ?? 0,
    level: e.level ?? 'info',
    message: String(e.message ?? ''),
    type: e.type === 'metrics' ? 'metrics' : 'message',
  }));
  return { ...listBody(data, list.has_more === true), object: 'list' };
}
