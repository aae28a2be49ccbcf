import type { Operation } from '../../../../contract/operations.js';
import { semanticError } from '../../../../contract/errors/gateway-error.js';
import { unixSeconds } from '../../../../contract/openai/files.js';
import { windowList } from '../../../../contract/openai/lists.js';
import type { SpecJobStatus } from '../../../../contract/openai/fine-tuning-jobs.js';
import type { FineTuningJobCreateRequest } from '../../../../generated/requests/fine-tuning-jobs-create.js';
import { objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { pathId, resourceAdapter } from '../shared/resource-adapter.js';
import { mistralPageQuery } from './files.js';

const STATUS: Record<string, SpecJobStatus> = {
  QUEUED: 'created',
  VALIDATING: 'created',
  VALIDATED: 'created',
  STARTED: 'running',
  RUNNING: 'running',
  SUCCESS: 'succeeded',
  FAILED: 'failed',
  FAILED_VALIDATION: 'failed',
  CANCELLED: 'cancelled',
  CANCELLATION_REQUESTED: 'cancelled',
};

/** Mistral's job -> OpenAI's job shape with the spec's status. */
export function mistralJob(answer: unknown): JsonObject & { id: string; created_at: number } {
  const job = objectOf(answer);
  const status = STATUS[String(job.status)] ?? 'running';
  const done = status === 'succeeded' || status === 'failed' || status === 'cancelled';
  const hp = objectOf(job.hyperparameters);
  const files = (list: unknown) => (Array.isArray(list) ? list.map((f: unknown) => (typeof f === 'string' ? f : (f as JsonObject | null)?.file_id)) : []);
  return {
    id: String(job.id),
    object: 'fine_tuning.job',
    model: job.model,
    created_at: unixSeconds(job.created_at) ?? 0,
    finished_at: done ? unixSeconds(job.modified_at) : null,
    fine_tuned_model: job.fine_tuned_model ?? null,
    organization_id: 'mistral-ai',
    result_files: [],
    status,
    training_file: files(job.training_files)[0] ?? null,
    validation_file: files(job.validation_files)[0] ?? null,
    hyperparameters: {
      ...hp,
      n_epochs: hp.epochs ?? 'auto',
      batch_size: 'auto',
      learning_rate_multiplier: 'auto',
    },
    trained_tokens: job.trained_tokens ?? null,
    suffix: job.suffix ?? null,
  };
}

/** OpenAI's create body -> Mistral's: file lists, epochs, auto_start. */
function createBody(call: ProviderCall): Record<string, unknown> {
  const { training_file, validation_file, hyperparameters: hp = {}, seed: _seed, method: _method, ...rest } = call.body as FineTuningJobCreateRequest;
  if (typeof hp.batch_size === 'number') throw semanticError('mistral-ai does not take batch_size.', 'hyperparameters.batch_size');
  if (typeof hp.learning_rate_multiplier === 'number') {
    throw semanticError('mistral-ai takes an absolute learning_rate, not learning_rate_multiplier.', 'hyperparameters.learning_rate_multiplier');
  }
  const out: Record<string, unknown> = { auto_start: true, ...rest, training_files: [{ file_id: training_file, weight: 1 }] };
  if (validation_file) out.validation_files = [validation_file];
  if (typeof hp.n_epochs === 'number') out.hyperparameters = { epochs: hp.n_epochs };
  if (out.suffix === null) delete out.suffix;
  return out;
}

/** Mistral's fine-tuning API: /fine_tuning/jobs; events come from the job's own `events`. */
export const mistralFineTuning: Partial<Record<Operation, OperationAdapter>> = {
  'fine_tuning.jobs.create': resourceAdapter({ method: 'POST', path: () => '/fine_tuning/jobs', json: createBody, response: mistralJob }),
  'fine_tuning.jobs.list': resourceAdapter({
    method: 'GET',
    path: () => '/fine_tuning/jobs',
    query: mistralPageQuery,
    response: (body, call) => {
      const jobs = objectsOf(objectOf(body).data).map(mistralJob);
      jobs.sort((a, b) => b.created_at - a.created_at);
      return windowList(jobs, call.query);
    },
  }),
  'fine_tuning.jobs.retrieve': resourceAdapter({ method: 'GET', path: (call) => `/fine_tuning/jobs/${pathId(call, 'job_id')}`, response: mistralJob }),
  'fine_tuning.jobs.cancel': resourceAdapter({ method: 'POST', path: (call) => `/fine_tuning/jobs/${pathId(call, 'job_id')}/cancel`, response: mistralJob }),
  'fine_tuning.jobs.events': resourceAdapter({
    method: 'GET',
    path: (call) => `/fine_tuning/jobs/${pathId(call, 'job_id')}`,
    response: (job, call) => {
      const events = objectsOf(objectOf(job).events).map((e, i) => ({
        id: `${call.params.job_id}-event-${i}`,
        object: 'fine_tuning.job.event',
        created_at: unixSeconds(e.created_at) ?? 0,
        level: 'info',
        message: objectOf(e.data).status ? `${String(e.name)}: ${String(objectOf(e.data).status)}` : String(e.name ?? ''),
        type: 'message',
      }));
      events.sort((a, b) => b.created_at - a.created_at);
      return windowList(events, call.query);
    },
  }),
};
