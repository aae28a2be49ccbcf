import type { HeldObjectsStageConfig } from '../../generated/stages/held-objects.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { BODY } from '../../kernel/engine/request-body.js';
import { RESPONSE, type JsonAnswer } from '../../kernel/engine/context.js';
import type { Operation } from '../../contract/operations.js';
import { notFound } from '../../contract/errors/gateway-error.js';
import { answerJson, HELD_OBJECTS, heldObjectOwner, TARGET, usesHeldKey, type HeldObjectKind, type HeldObjects, type ModelContext } from '../models/index.js';

type Json = Record<string, unknown>;

/** What an operation does with which kind of object: makes one, lists them, or names one in its path. */
interface Use {
  kind: HeldObjectKind;
  action: 'create' | 'list' | 'one';
  /** The path parameter naming the object (`one`). */
  param?: string;
  /** Body fields naming files the new object reads (`create`). */
  files?: string[];
}

const USES: Partial<Record<Operation, Use>> = {
  'files.create': { kind: 'file', action: 'create' },
  'files.list': { kind: 'file', action: 'list' },
  'files.retrieve': { kind: 'file', action: 'one', param: 'file_id' },
  'files.delete': { kind: 'file', action: 'one', param: 'file_id' },
  'files.content': { kind: 'file', action: 'one', param: 'file_id' },
  'batches.create': { kind: 'batch', action: 'create', files: ['input_file_id'] },
  'batches.list': { kind: 'batch', action: 'list' },
  'batches.retrieve': { kind: 'batch', action: 'one', param: 'batch_id' },
  'batches.cancel': { kind: 'batch', action: 'one', param: 'batch_id' },
  'fine_tuning.jobs.create': { kind: 'fine_tuning.job', action: 'create', files: ['training_file', 'validation_file'] },
  'fine_tuning.jobs.list': { kind: 'fine_tuning.job', action: 'list' },
  'fine_tuning.jobs.retrieve': { kind: 'fine_tuning.job', action: 'one', param: 'job_id' },
  'fine_tuning.jobs.cancel': { kind: 'fine_tuning.job', action: 'one', param: 'job_id' },
  'fine_tuning.jobs.events': { kind: 'fine_tuning.job', action: 'one', param: 'job_id' },
};

const NAMES: Record<HeldObjectKind, string> = { file: 'file', batch: 'batch', 'fine_tuning.job': 'fine-tuning job', response: 'response' };

/** The same 404 for another tenant's object as for one that does not exist. */
function unknown(kind: HeldObjectKind, id: string, param: string) {
  return notFound(`No ${NAMES[kind]} ${id}.`, param);
}

/** The files an object made by the provider holds for its owner: a batch's output and error files, a job's result files. */
function filesOf(kind: HeldObjectKind, object: Json): string[] {
  const out: string[] = [];
  if (kind === 'batch') {
    for (const field of ['output_file_id', 'error_file_id']) if (typeof object[field] === 'string' && object[field]) out.push(object[field]);
  } else if (kind === 'fine_tuning.job' && Array.isArray(object.result_files)) {
    for (const id of object.result_files) if (typeof id === 'string' && id) out.push(id);
  }
  return out;
}

/** The provider's 2xx JSON answer of this attempt, as an object (undefined: none, or not JSON). */
function answerOf(ctx: ModelContext): Json | undefined {
  const response = ctx.response;
  if (ctx.error || response?.kind !== 'json' || response.status < 200 || response.status >= 300) return undefined;
  try {
    const body = answerJson(ctx, response);
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : undefined;
  } catch {
    return undefined;
  }
}

async function checked(ctx: ModelContext, held: HeldObjects, use: Use, provider: string, owner: string, next: () => Promise<void>): Promise<void> {
  if (use.action === 'one') {
    const id = ctx.params[use.param!] ?? '';
    if (!(await held.owns(use.kind, provider, id, owner))) throw unknown(use.kind, id, use.param!);
    await next();
    const answer = answerOf(ctx);
    if (!answer) return;
    if (ctx.endpoint.operation === 'files.delete') await held.forget('file', provider, id);
    else for (const file of filesOf(use.kind, answer)) await held.record('file', provider, file, owner);
    return;
  }
  if (use.action === 'create') {
    const body = ctx.get(BODY) as Json | undefined;
    for (const field of use.files ?? []) {
      const id = body?.[field];
      if (typeof id === 'string' && !(await held.owns('file', provider, id, owner))) throw unknown('file', id, field);
    }
    await next();
    const answer = answerOf(ctx);
    if (typeof answer?.id === 'string' && answer.id) await held.record(use.kind, provider, answer.id, owner);
    return;
  }
  return listed(ctx, held, use.kind, provider, owner, next);
}

/** Provider pages one list request reads at most, its first included (see listed). */
const MAX_PAGES = 10;
/** The page size asked of the provider for the pages read to fill one (the cursor is by id: the size does not move it). */
const FILL_LIMIT = 100;

/**
 * A list from the provider, filtered to the caller's own objects, in full pages: while fewer
 * than the caller's `limit` (without one, the provider's first page's size) were kept and the
 * provider has more, its next page is read (`after` its last id, of FILL_LIMIT items), at most
 * MAX_PAGES pages in all. At most `limit` items are answered; `has_more` when more of the
 * caller's may follow: the caller's next `after` (the last id answered) goes on from there, the
 * objects between that id and where the reading stopped being another's. A list nothing was
 * filtered out of passes as it came.
 */
async function listed(ctx: ModelContext, held: HeldObjects, kind: HeldObjectKind, provider: string, owner: string, next: () => Promise<void>): Promise<void> {
  await next();
  const answer = answerOf(ctx);
  if (!answer || !Array.isArray(answer.data)) return;
  const response = ctx.response as JsonAnswer;
  const query = ctx.query;
  const asked = Number(query.get('limit') ?? NaN);
  const limited = Number.isInteger(asked) && asked > 0;
  let items = answer.data as Json[];
  const limit = limited ? asked : Math.max(1, items.length);
  const data: Json[] = [];
  const seen = new Set<string>();
  let more = answer.has_more === true;
  let filtered = false;
  /** Own objects read past `limit` (on the last page read). */
  let spare = false;
  const callerQuery = [...query];
  try {
    for (let pages = 1; ; pages++) {
      const fresh = items.filter((item): item is Json & { id: string } => typeof item?.id === 'string' && !seen.has(item.id));
      for (const item of fresh) seen.add(item.id);
      const ids = fresh.map((item) => item.id);
      const own = await held.ownedOf(kind, provider, owner, ids);
      for (const item of fresh) {
        if (!own.has(item.id)) continue;
        for (const file of filesOf(kind, item)) await held.record('file', provider, file, owner);
        if (data.length < limit) data.push(item);
        else spare = true;
      }
      if (own.size !== items.length) filtered = true;
      const last = items.at(-1)?.id;
      // A provider that answers ids already read (or none) does not go on after `after`: nothing more to read.
      if (!filtered || data.length >= limit || !more || pages >= MAX_PAGES || typeof last !== 'string' || (pages > 1 && !fresh.length)) break;
      query.set('after', last);
      if (limited) query.set('limit', String(Math.max(limit, FILL_LIMIT)));
      try {
        await next();
      } catch (err) {
        // The pages read stand (the caller goes on from the last id answered); without one of its own, the failure is the answer.
        if (ctx.callerGone || !data.length) throw err;
        break;
      }
      const page = answerOf(ctx);
      if (!page || !Array.isArray(page.data)) break;
      items = page.data as Json[];
      more = page.has_more === true;
    }
  } finally {
    for (const key of [...new Set(query.keys())]) query.delete(key);
    for (const [key, value] of callerQuery) query.append(key, value);
  }
  if (!filtered) {
    ctx.response = response;
    return;
  }
  const filteredAnswer: Json = { ...answer, data, has_more: spare || more };
  if ('first_id' in answer) filteredAnswer.first_id = (data[0]?.id as string | undefined) ?? null;
  if ('last_id' in answer) filteredAnswer.last_id = (data.at(-1)?.id as string | undefined) ?? null;
  ctx.response = { kind: 'json', status: response.status, headers: response.headers, body: filteredAnswer };
}

/**
 * Files, batches and fine-tuning jobs a provider keeps for a key the gateway holds (a held
 * credential, providers.<id>.apiKey, an operator config's key): that key serves many tenants,
 * one account at the provider. Each object made through the gateway is recorded as its gateway
 * credential's; a list shows a caller only its own (in full pages: see listed), and an id of
 * another's (to read, delete, cancel, or build a batch or a job on) is answered as an unknown
 * id, 404, nothing sent. A
 * batch's output files and a job's result files belong to the batch's or job's owner. Requests
 * on the caller's own provider key pass as they are: the provider tells its own. Runs once per
 * target attempt (after fallback), where the attempt's key is known.
 */
export default defineStage<HeldObjectsStageConfig, ModelContext>({
  name: 'held-objects',
  description: 'Keeps what a provider stores on a key the gateway holds (files, batches, fine-tuning jobs) to the gateway key that made it.',
  schema: schemaDocument('stages/held-objects.schema.json'),
  requires: [TARGET],
  reads: [BODY, RESPONSE],
  writes: [RESPONSE],
  create(_config, services) {
    const held = services.require(HELD_OBJECTS);
    return (ctx, next) => {
      const use = USES[ctx.endpoint.operation];
      const target = ctx.get(TARGET);
      if (!use || !usesHeldKey(target)) return next();
      const owner = heldObjectOwner(ctx);
      // A held key serves only requests with a gateway credential: without one there is no owner to answer for.
      if (!owner) return Promise.reject(unknown(use.kind, ctx.params[use.param ?? ''] ?? '', use.param ?? 'x-gateway-provider'));
      return checked(ctx, held, use, target!.provider, owner, next);
    };
  },
});
