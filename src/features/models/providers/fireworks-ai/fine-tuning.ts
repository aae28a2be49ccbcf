import type { Operation } from '../../../../contract/operations.js';
import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import { unixSeconds } from '../../../../contract/openai/files.js';
import { windowList } from '../../../../contract/openai/lists.js';
import type { SpecJobStatus } from '../../../../contract/openai/fine-tuning-jobs.js';
import type { OperationAdapter, ProviderCall, ProviderInstance } from '../provider.js';
import { resourceAdapter } from '../shared/resource-adapter.js';
import type { FineTuningJobCreateRequest } from '../../../../generated/requests/fine-tuning-jobs-create.js';
import { objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';

/**
 * Fireworks' control plane lives at https://api.fireworks.ai/v1/accounts/{account}/...: the
 * inference base URL's /inference/v1 is replaced. The account comes from
 * x-gateway-fireworks-account-id or
 * providers.fireworks-ai.accountId.
 */
function account(call: ProviderCall, provider: ProviderInstance): string {
  const value = call.target.options?.fireworks_account_id ?? call.headers['x-gateway-fireworks-account-id'] ?? provider.settings.accountId;
  if (typeof value !== 'string' || !/^[a-z0-9][a-z0-9-]*$/i.test(value)) {
    throw badRequest('Fireworks fine-tuning needs the account id: send x-gateway-fireworks-account-id.', 'x-gateway-fireworks-account-id');
  }
  return value;
}

const controlPlane = (base: string) => base.replace(/\/inference\/v1$/, '');

function status(state: unknown): SpecJobStatus {
  const s = String(state ?? '');
  if (s.includes('COMPLETED')) return 'succeeded';
  if (s.includes('FAILED') || s.includes('EXPIRED')) return 'failed';
  if (s.includes('CANCEL') || s.includes('DELETING')) return 'cancelled';
  if (s.includes('RUNNING') || s.includes('WRITING_RESULTS') || s.includes('EVALUATION') || s.includes('ROLLOUT')) return 'running';
  return 'created';
}

const lastSegment = (name: unknown) =>
  String(name ?? '')
    .split('/')
    .pop() ?? '';

/** A supervised fine-tuning job -> OpenAI's job shape with the spec's status. */
export function fireworksJob(answer: unknown): JsonObject & { id: string; created_at: number } {
  const job = objectOf(answer);
  const jobStatus = objectOf(job.status);
  const state = status(job.state);
  const accountId = String(job.name ?? '').split('/')[1] ?? 'fireworks-ai';
  const done = state === 'succeeded' || state === 'failed' || state === 'cancelled';
  return {
    id: lastSegment(job.name),
    object: 'fine_tuning.job',
    model: job.baseModel,
    created_at: unixSeconds(job.createTime) ?? 0,
    finished_at: done ? unixSeconds(job.completedTime ?? job.updateTime) : null,
    fine_tuned_model: state === 'succeeded' ? (job.outputModel ?? null) : null,
    organization_id: accountId,
    result_files: [],
    status: state,
    training_file: job.dataset ?? null,
    validation_file: job.evaluationDataset || null,
    hyperparameters: {
      n_epochs: job.epochs ?? 'auto',
      batch_size: job.batchSizeSamples ?? 'auto',
      learning_rate_multiplier: 'auto',
      ...(job.learningRate !== undefined ? { learning_rate: job.learningRate } : {}),
    },
    trained_tokens: null,
    error: state === 'failed' && jobStatus.message ? { code: String(jobStatus.code ?? 'failed'), message: jobStatus.message, param: null } : null,
    display_name: job.displayName ?? null,
  };
}

const OPENAI_ONLY = ['training_file', 'validation_file', 'model', 'suffix', 'hyperparameters', 'seed', 'method', 'integrations', 'metadata'];

/** OpenAI's create body -> a supervised fine-tuning job: resource names, epochs, sample batch size. */
function createBody(call: ProviderCall, accountId: string): Record<string, unknown> {
  const body = call.body as FineTuningJobCreateRequest;
  const hp = body.hyperparameters ?? {};
  if (typeof hp.learning_rate_multiplier === 'number') {
    throw semanticError('fireworks-ai takes an absolute learningRate, not learning_rate_multiplier.', 'hyperparameters.learning_rate_multiplier');
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!OPENAI_ONLY.includes(k)) out[k] = v;
  const name = (id: string, kind: string, owner: string) => (id.includes('/') ? id : `accounts/${owner}/${kind}/${id}`);
  out.dataset = name(body.training_file, 'datasets', accountId);
  out.baseModel = name(body.model, 'models', 'fireworks');
  if (body.validation_file) out.evaluationDataset = name(body.validation_file, 'datasets', accountId);
  if (typeof hp.n_epochs === 'number') out.epochs = hp.n_epochs;
  if (typeof hp.batch_size === 'number') out.batchSizeSamples = hp.batch_size;
  if (body.suffix) out.displayName = body.suffix;
  return out;
}

const jobs = (call: ProviderCall, provider: ProviderInstance) => `/v1/accounts/${account(call, provider)}/supervisedFineTuningJobs`;
const one = (call: ProviderCall, provider: ProviderInstance, suffix = '') => `${jobs(call, provider)}/${encodeURIComponent(call.params.job_id ?? '')}${suffix}`;
const mapJob = (body: unknown) => fireworksJob(body);

/** Fireworks' supervised fine-tuning jobs (no events endpoint: that operation is not offered). */
export const fireworksFineTuning: Partial<Record<Operation, OperationAdapter>> = {
  'fine_tuning.jobs.create': resourceAdapter({
    method: 'POST',
    base: controlPlane,
    path: jobs,
    json: (call, provider) => createBody(call, account(call, provider)),
    response: mapJob,
  }),
  'fine_tuning.jobs.list': resourceAdapter({
    method: 'GET',
    base: controlPlane,
    path: jobs,
    query: () => new URLSearchParams({ pageSize: '200' }),
    response: (body, call) => {
      const list = objectsOf(objectOf(body).supervisedFineTuningJobs).map(mapJob);
      list.sort((a, b) => b.created_at - a.created_at);
      return windowList(list, call.query);
    },
  }),
  'fine_tuning.jobs.retrieve': resourceAdapter({ method: 'GET', base: controlPlane, path: (call, p) => one(call, p), response: mapJob }),
  'fine_tuning.jobs.cancel': resourceAdapter({ method: 'POST', base: controlPlane, path: (call, p) => one(call, p, ':cancel'), json: () => ({}), response: mapJob }),
};
