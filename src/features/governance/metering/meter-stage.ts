import type { MeterStageConfig } from '../../../generated/stages/meter.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { BODY, BODY_CHANGED, ensureJsonBody, RAW_BODY, setBodyMembers } from '../../../kernel/engine/request-body.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { isAnswerError } from '../../../kernel/errors/answer-error.js';
import { BATCH_LINE, ROUTING, USAGE_NOT_ASKED, type ModelContext, type ModelStreamAnswer, CALL_SPAN, TARGET, USAGE } from '../../models/index.js';
import { Meter } from './meter.js';
import type { GatewayKey } from '../governance-types.js';
import { METER, METER_DEPS } from './metering-services.js';
import { noteStreamText } from './stream-text.js';
import { loadTokenizer } from './token-count.js';
import { CATALOGUE_MODEL, GATEWAY_KEY } from '../../../features/governance/governance-slots.js';
import { RESPONSE } from '../../../kernel/engine/context.js';

/** The operations that cost money upstream (files, batch jobs, model lists, stored responses cost nothing by themselves). */
const PRICED = new Set([
  'chat.completions',
  'completions',
  'responses.create',
  'messages.create',
  'embeddings',
  'images.generations',
  'images.edits',
  'audio.speech',
  'audio.transcriptions',
  'audio.translations',
]);

/** Operations whose OpenAI-shaped streams report usage only when stream_options.include_usage asks. */
const ASK_USAGE = new Set(['chat.completions', 'completions']);

/**
 * A line of a batch the gateway runs: billed as it finishes, at the batch price (no HTTP
 * answer is written for it, so it settles here rather than after an answer).
 */
async function batchLine(ctx: ModelContext, next: () => Promise<void>, meter: Meter): Promise<void> {
  let status = 500;
  try {
    await next();
    const response = ctx.response;
    status = response && 'status' in response ? response.status : 200;
  } catch (err) {
    status = isAnswerError(err) ? err.status : 500;
    throw err;
  } finally {
    meter.finish(ctx, status);
  }
}

/**
 * Meters a request made with a gateway key (see Meter): reserves before the rest of the chain
 * (after route, before fallback, so every attempt is covered by one reservation), asks a
 * stream's upstream for its usage, and notes a stream's text for a caller who goes away. The
 * settle and the ledger row come once the answer is written (the metering capability's
 * request observer). Requests without a gateway key pass untouched.
 */
export default defineStage<MeterStageConfig, ModelContext>({
  name: 'meter',
  description: 'Reserves the worst-case cost on the applicable budgets, settles to the real cost, records the usage row, adds x-gateway-cost.',
  schema: schemaDocument('stages/meter.schema.json'),
  requires: [ROUTING],
  once: true,
  reads: [BODY, BATCH_LINE, CATALOGUE_MODEL, GATEWAY_KEY, TARGET, USAGE, METER, CALL_SPAN, RESPONSE],
  writes: [METER, BODY, RAW_BODY, BODY_CHANGED, USAGE_NOT_ASKED],
  create(config, services) {
    const deps = services.require(METER_DEPS);
    const bodyLimit = config.bodyLimit ?? services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    const metered = async (ctx: ModelContext, next: () => Promise<void>, key: GatewayKey): Promise<void> => {
      const meter = new Meter(key, deps, ctx);
      ctx.set(METER, meter);
      const reading = ensureJsonBody(ctx, bodyLimit);
      if (reading) await reading;
      const reserving = meter.reserve(ctx, ctx.get(ROUTING));
      if (reserving) await reserving;
      const body = ctx.get(BODY) as Record<string, unknown> | undefined;
      // The tokenizer counts what a stream cut short generated (and the prompt of a reservation
      // near a budget's limit, which waits for it): loaded with the first keyed stream, never by
      // a gateway that serves no gateway key, nor one whose keyed answers are all whole JSON.
      if (body?.stream === true) void loadTokenizer();
      const streamOptions = body?.stream_options as { include_usage?: unknown } | null | undefined;
      if (body?.stream === true && ASK_USAGE.has(ctx.endpoint.operation) && streamOptions?.include_usage !== true) {
        // Streams are always billed: ask for the usage chunk, which the caller did not ask for and does not get.
        setBodyMembers(ctx, { stream_options: { ...(streamOptions ?? {}), include_usage: true } });
        ctx.set(USAGE_NOT_ASKED, true);
      }
      await next();
      const response = ctx.response;
      if (response?.kind === 'stream') meter.streamed = noteStreamText(response as ModelStreamAnswer);
    };
    return {
      // A request without a gateway key, or of an operation that costs nothing, passes in the same turn.
      run: (ctx, next) => {
        if (!PRICED.has(ctx.endpoint.operation)) return next();
        const key = deps.inputs.keyOf(ctx);
        if (!key) return next();
        if (ctx.has(BATCH_LINE)) return batchLine(ctx, next, new Meter(key, deps, ctx, true));
        return metered(ctx, next, key);
      },
      decorate(ctx, headers) {
        ctx.get(METER)?.decorate(ctx, headers);
      },
    };
  },
});
