import type { Operation } from '../../../../contract/operations.js';
import { semanticError } from '../../../../contract/errors/gateway-error.js';
import { unixSeconds } from '../../../../contract/openai/files.js';
import { windowList } from '../../../../contract/openai/lists.js';
import type { SpecJobStatus } from '../../../../contract/openai/fine-tuning-jobs.js';
import type { FineTuningJobCreateRequest } from '../../../../generated/requests/fine-tuning-jobs-create.js';
import { objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { pathId, resourceAdapter } from '../shared/resource-adapter.js';

const STATUS: Record<string, SpecJobStatus> = {
  pending: 'created',
  queued: 'created',
  running: 'running',
  compressing: 'running',
  uploading: 'running',
  completed: 'succeeded',
  error: 'failed',
  user_error: 'failed',
  cancel_requested: 'cancelled',
  cancelled: 'cancelled',
};

/** Together's fine-tune record -> OpenAI's job shape with the spec's status. */
export function togetherJob(answer: unknown): JsonObject & { id: string; created_at: number } {
  const job = objectOf(answer);
  const status = STATUS[String(job.status)] ?? 'running';
  const done = status === 'succeeded' || status === 'failed' || status === 'cancelled';
  return {
    id: String(job.id),
    object: 'fine_tuning.job',
    model: job.model,
    created_at: unixSeconds(job.created_at) ?? 0,
    finished_at: done ? unixSeconds(job.updated_at) : null,
    fine_tuned_model: status === 'succeeded' ? (job.model_output_name ?? null) : null,
    organization_id: 'together-ai',
    result_files: [],
    status,
    training_file: job.training_file ?? null,
    validation_file: job.validation_file || null,
    hyperparameters: {
      n_epochs: job.n_epochs ?? 'auto',
      batch_size: job.batch_size ?? 'auto',
      learning_rate_multiplier: 'auto',
      ...(job.learning_rate !== undefined ? { learning_rate: job.learning_rate } : {}),
    },
    trained_tokens: status === 'succeeded' ? (job.token_count ?? null) : null,
    suffix: job.suffix ?? null,
  };
}

/** OpenAI's create body -> Together's: hyperparameters become top-level fields. */
function createBody(call: ProviderCall): Record<string, unknown> {
  const { hyperparameters: hp = {}, seed, method: _method, ...rest } = call.body as FineTuningJobCreateRequest;
  if (typeof hp.learning_rate_multiplier === 'number') {
    throw semanticError('together-ai takes an absolute learning_rate, not learning_rate_multiplier.', 'hyperparameters.learning_rate_multiplier');
  }
  const out: Record<string, unknown> = { ...rest };
  if (typeof hp.n_epochs === 'number') out.n_epochs = hp.n_epochs;
  if (typeof hp.batch_size === 'number') out.batch_size = hp.batch_size;
  if (typeof seed === 'number') out.random_seed = seed;
  if (out.validation_file === null) delete out.validation_file;
  if (out.suffix === null) delete out.suffix;
  return out;
}

/** Together's fine-tuning API: /fine-tunes (create, list, retrieve, cancel, events). */
export const togetherFineTuning: Partial<Record<Operation, OperationAdapter>> = {
  'fine_tuning.jobs.create': resourceAdapter({ method: 'POST', path: () => '/fine-tunes', json: createBody, response: togetherJob }),
  'fine_tuning.jobs.list': resourceAdapter({
    method: 'GET',
    path: () => '/fine-tunes',
    response: (body, call) => {
      const jobs = objectsOf(objectOf(body).data).map(togetherJob);
      jobs.sort((a, b) => b.created_at - a.created_at);
      return windowList(jobs, call.query);
    },
  }),
  'fine_tuning.jobs.retrieve': resourceAdapter({ method: 'GET', path: (call) => `/fine-tunes/${pathId(call, 'job_id')}`, response: togetherJob }),
  'fine_tuning.jobs.cancel': resourceAdapter({ method: 'POST', path: (call) => `/fine-tunes/${pathId(call, 'job_id')}/cancel`, response: togetherJob }),
  'fine_tuning.jobs.events': resourceAdapter({
    method: 'GET',
    path: (call) => `/fine-tunes/${pathId(call, 'job_id')}/events`,
    response: (body, call) => {
      const events = objectsOf(objectOf(body).data).map((e, i) => ({
        id: `${call.params.job_id}-event-${i}`,
        object: 'fine_tuning.job.event',
        created_at: unixSeconds(e.created_at) ?? 0,
        level: e.level ?? 'info',
        message: String(e.message ?? ''),
        type: 'message',
      }));
      events.reverse();
      return windowList(events, call.query);
    },
  }),
};
