import type { ResourceShapesStageConfig } from '../../../generated/stages/resource-shapes.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import type { Operation } from '../../../contract/operations.js';
import { GATEWAY_SERVED, TARGET, type ModelContext } from '../model-request.js';
import { openAIFile } from '../../../contract/openai/files.js';
import { windowList } from '../../../contract/openai/lists.js';
import { specEvents, specJob, specJobList } from '../../../contract/openai/fine-tuning-jobs.js';
import { RESPONSE } from '../../../kernel/engine/context.js';
import { answerJson } from '../answer-json.js';
import { objectOf, type JsonObject } from '../../../contract/json.js';

/**
 * `body` is the provider's JSON answer, read as an object; an answer that is not one fails in
 * its shape as it always has (the contract's provider error through normalize-error).
 */
type Shape = (body: JsonObject, provider: string, query: URLSearchParams) => unknown | undefined;

const isFile = (value: unknown): boolean => {
  const f = objectOf(value);
  return f.object === 'file' && typeof f.status === 'string' && typeof f.created_at === 'number';
};

/** Each shape returns the answer in the spec's shape, or undefined when it already is (bytes pass). */
const SHAPES: Partial<Record<Operation, Shape>> = {
  'fine_tuning.jobs.create': specJob,
  'fine_tuning.jobs.retrieve': specJob,
  'fine_tuning.jobs.cancel': specJob,
  'fine_tuning.jobs.list': specJobList,
  'fine_tuning.jobs.events': (body) => specEvents(body),
  'files.create': (body) => (isFile(body) ? undefined : openAIFile(body)),
  'files.retrieve': (body) => (isFile(body) ? undefined : openAIFile(body)),
  'files.list': (body) =>
    Array.isArray(body?.data) && typeof body.has_more === 'boolean' && body.data.every(isFile)
      ? undefined
      : { ...body, object: 'list', data: ((body?.data ?? []) as unknown[]).map((f) => (isFile(f) ? f : openAIFile(f))), has_more: body?.has_more === true },
  'models.list': (body, _provider, query) => modelPage(body, query),
  'images.generations': (body) => (typeof body?.created === 'number' ? undefined : { ...body, created: Math.floor(Date.now() / 1000) }),
};

/** A provider's model list as the contract's list: newest first, `limit` (default 20) and `after`, `has_more`. */
function modelPage(body: JsonObject, query: URLSearchParams) {
  const data = body?.data;
  const models = (Array.isArray(data) ? data.filter((m) => typeof objectOf(m).id === 'string') : []) as Array<{ id: string; created?: number }>;
  const newestFirst = models
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (b.m.created ?? 0) - (a.m.created ?? 0) || a.i - b.i)
    .map((e) => e.m);
  const page = windowList(newestFirst, query);
  // The provider itself may hold more than it sent (its own pagination).
  if (!page.has_more && body?.has_more === true) page.has_more = true;
  return page;
}

/**
 * Answers of provider APIs put in the spec's resource shapes after forwarding: fine-tuning
 * jobs (the spec's statuses, hyperparameters defaulting to "auto", organization_id,
 * result_files, trained_tokens), event, file and model lists (`has_more`; models windowed by
 * `limit`/`after`), file objects, image results (`created`). Answers already in shape pass through as the upstream's bytes.
 */
export default defineStage<ResourceShapesStageConfig, ModelContext>({
  name: 'resource-shapes',
  description: 'Puts files, fine-tuning and image answers in the spec resource shapes.',
  schema: schemaDocument('stages/resource-shapes.schema.json'),
  reads: [TARGET, GATEWAY_SERVED, RESPONSE],
  writes: [RESPONSE],
  create() {
    return async (ctx, next) => {
      await next();
      const shape = SHAPES[ctx.endpoint.operation];
      const response = ctx.response;
      if (!shape || ctx.has(GATEWAY_SERVED) || ctx.error || response?.kind !== 'json' || response.status >= 300) return;
      const body = answerJson(ctx, response);
      const shaped = shape(body as JsonObject, ctx.get(TARGET)?.provider ?? '', ctx.query);
      if (shaped !== undefined) ctx.response = { kind: 'json', status: response.status, headers: response.headers, body: shaped };
    };
  },
});
