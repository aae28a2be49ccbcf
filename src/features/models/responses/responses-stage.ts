import type { ResponsesStateStageConfig } from '../../../generated/stages/responses-state.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import { BODY, BODY_CHANGED, ensureJsonBody } from '../../../kernel/engine/request-body.js';
import { CALLER } from '../../../kernel/engine/report.js';
import { badRequest, GatewayError, notFound } from '../../../contract/errors/gateway-error.js';
import { PartStream } from '../../../contract/part-stream.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import { ResponsesWriter } from '../../../contract/openai/responses-writer.js';
import { GATEWAY_SERVED, PROVIDER_KEY, ROUTING, TARGET, type ModelContext } from '../model-request.js';
import type { RoutedAs } from '../routing/plan.js';
import { PROVIDERS } from '../providers/provider-registry.js';
import { modelAnswer } from '../stream-answer.js';
import { answerJson } from '../answer-json.js';
import { isTranslated } from '../translations.js';
import { normalizeInput, outputAsInput } from './input-items.js';
import { RESPONSE_STORE, type StoredResponse } from './response-store.js';
import { answerKept, ownerOf } from './kept-response-answers.js';
import { ANSWERED_BY_GATEWAY } from './answered-by-gateway.js';
import { RESPONSE, IDENTITY } from '../../../kernel/engine/context.js';
import { usesHeldKey } from '../routing/held-credentials.js';
import { HELD_OBJECTS, type HeldObjects } from '../routing/held-objects.js';

type GatewayContext = ModelContext;
type Json = Record<string, unknown>;

/**
 * Whether a response id this caller does not keep here may go to the attempt's provider: always
 * with the caller's own key (the provider tells its own); with a key the gateway holds, only an
 * id that this caller made on it (the provider keeps every tenant's responses under that key).
 */
async function providerMayResolve(ctx: GatewayContext, held: HeldObjects, id: string): Promise<boolean> {
  const target = ctx.get(TARGET);
  if (!usesHeldKey(target)) return true;
  return held.owns('response', target!.provider, id, ownerOf(ctx));
}

/** Notes that the caller made response `id` on a key the gateway holds (so that it alone reaches it at the provider). */
function recordHeld(ctx: GatewayContext, held: HeldObjects, id: unknown): Promise<void> | undefined {
  const target = ctx.get(TARGET);
  if (!usesHeldKey(target) || typeof id !== 'string' || !id) return undefined;
  return held.record('response', target!.provider, id, ownerOf(ctx));
}

const END_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const KEPT_STATUSES = new Set<unknown>(['completed', 'incomplete', 'failed']);

/** Whether the target's provider serves `operation` with its own Responses API. */
function nativeFor(ctx: GatewayContext, services: GatewayServices, operation: 'responses.create' | 'responses.retrieve' | 'responses.delete'): boolean {
  const target = ctx.get(TARGET);
  const provider = target ? services.require(PROVIDERS).get(target.provider) : undefined;
  const adapter = provider?.operations[operation];
  return adapter !== undefined && !isTranslated(adapter);
}

/** Conversation items of a kept chain, as input for a provider (own ids of translated items dropped for a native one). */
function conversation(chain: StoredResponse[], forNative: boolean): Json[] {
  const items: Json[] = [];
  for (const record of chain) {
    for (const item of [...record.inputItems, ...outputAsInput(record.response.output)]) {
      if (forNative && !record.native) {
        if (item.type === 'reasoning') continue; // another provider's reasoning means nothing here
        // the tool loop's items keep their ids (an approval names its request by id); the loop turns them into calls
        if (typeof item.type === 'string' && item.type.startsWith('mcp_')) {
          items.push(item);
          continue;
        }
        const { id: _id, ...rest } = item;
        items.push(rest);
      } else items.push(item);
    }
  }
  return items;
}

/**
 * DELETE of a response its provider keeps as well: sent on to that provider (the attempt's
 * target, with its credentials). True when the provider answered the delete; false when it no
 * longer had the response (404). Any other failure reaches the caller, and the kept copy stays.
 */
async function deleteAtProvider(ctx: GatewayContext, services: GatewayServices, record: StoredResponse, next: () => Promise<void>): Promise<boolean> {
  if (ctx.get(TARGET)?.provider !== record.provider || !nativeFor(ctx, services, 'responses.delete')) {
    throw badRequest(`Response ${record.id} is kept by ${record.provider} too: send the DELETE to ${record.provider} so that it is deleted there as well.`, 'x-gateway-provider');
  }
  try {
    await next();
    return true;
  } catch (err) {
    if (err instanceof GatewayError && err.upstreamStatus === 404) return false;
    throw err;
  }
}

/** How the attempt was routed, when by catalogue model: the model and the index of the target that served it. */
function routedAs(ctx: GatewayContext): RoutedAs | null {
  const model = ctx.get(ROUTING)?.byModel;
  const index = ctx.get(TARGET)?.index;
  return model !== undefined && index !== undefined ? { model, index } : null;
}

/** Sets previous_response_id back into a response the provider answered without it. */
function withPrevious(response: Json, previousId: string | undefined): Json {
  return previousId ? { ...response, previous_response_id: previousId } : response;
}

/**
 * Keeps a streamed response once the stream completes, before its last event reaches the
 * caller (so the next request can name it at once). Translated streams: a silent Responses
 * writer sees the same parts and holds the same response; native ones: the final event's response.
 */
function keptStream(
  parts: AsyncIterable<StreamPart>,
  request: Json,
  keep: (response: Json) => Promise<void>,
  previousId: string | undefined,
  created?: (id: unknown) => Promise<void> | undefined,
): AsyncIterable<StreamPart> {
  const shadow = new ResponsesWriter(request, true);
  let final: Json | undefined;
  const PREV_NULL = '"previous_response_id":null';
  const prevSet = previousId ? `"previous_response_id":${JSON.stringify(previousId)}` : undefined;
  const observe = async (batch: StreamPart[]): Promise<StreamPart[]> => {
    const out: StreamPart[] = [];
    for (let part of batch) {
      if (part.type === 'event') {
        if (prevSet && part.data.includes(PREV_NULL)) part = { ...part, data: part.data.replace(PREV_NULL, prevSet) };
        if (created && part.event === 'response.created') {
          try {
            await created(JSON.parse(part.data).response?.id);
          } catch {
            // an event that is not JSON names no response
          }
        }
        if (part.event && END_EVENTS.has(part.event)) {
          try {
            final = JSON.parse(part.data).response;
          } catch {
            final = undefined;
          }
        }
      } else shadow.write(part);
      if (part.type === 'done') {
        const response = final ?? shadow.result();
        if (response && KEPT_STATUSES.has(response.status)) await keep(response);
      }
      out.push(part);
    }
    return out;
  };
  if (parts instanceof PartStream) {
    const source = parts.batches()[Symbol.asyncIterator]();
    return new PartStream(undefined, {
      next: async () => {
        const step = await source.next();
        return step.done ? step : { done: false, value: await observe(step.value) };
      },
      return: async () => (await source.return?.()) ?? { done: true, value: undefined },
    });
  }
  return (async function* () {
    for await (const part of parts) yield* await observe([part]);
  })();
}

/**
 * The gateway's side of the Responses API, on any provider. POST: a previous_response_id kept
 * here becomes the conversation so far (unless the same provider keeps it itself), and the
 * answer is kept (store, default true) once complete. GET, DELETE, cancel and input_items
 * answer from the store (DELETE of a response the provider keeps too goes on to it as well);
 * ids the gateway does not keep for this caller go to a provider with the Responses API (its own
 * background responses), or are 404, whoever else may keep that id. Runs once per target attempt, after route.
 */
export default defineStage<ResponsesStateStageConfig, GatewayContext>({
  name: 'responses-state',
  description: 'Keeps responses in the gateway store: previous_response_id, store, retrieve, delete, input items.',
  schema: schemaDocument('stages/responses-state.schema.json'),
  // The owner of a kept response is the authenticated caller; the provider of the attempt decides native or translated.
  requires: [CALLER, TARGET],
  reads: [ANSWERED_BY_GATEWAY, BODY, BODY_CHANGED, PROVIDER_KEY, RESPONSE, IDENTITY, ROUTING],
  writes: [BODY, BODY_CHANGED, GATEWAY_SERVED, RESPONSE],
  create(_config, services) {
    const store = services.require(RESPONSE_STORE);
    const held = services.require(HELD_OBJECTS);
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx, next) => {
      const operation = ctx.endpoint.operation;
      if (!operation.startsWith('responses.')) return next();
      if (operation !== 'responses.create') {
        const owner = ownerOf(ctx);
        const id = ctx.params.response_id ?? '';
        const record = await store.get(owner, id);
        if (!record) {
          // The same 404 for an id another tenant made on a key the gateway holds as for an unknown one.
          if (nativeFor(ctx, services, 'responses.retrieve') && (await providerMayResolve(ctx, held, id))) return next();
          throw notFound(`No response ${id}.`, 'response_id');
        }
        return answerKept(ctx, store, owner, record, () => deleteAtProvider(ctx, services, record, next));
      }
      await ensureJsonBody(ctx, bodyLimit);
      const original: Json = ctx.get(BODY)!;
      const previousId = typeof original.previous_response_id === 'string' ? original.previous_response_id : undefined;
      const keep = original.store !== false;
      // Nothing to keep and no conversation to restore: the request goes on as it is (a response the
      // provider keeps anyway on a held key, a background one, is still noted as the caller's).
      if (!keep && !previousId) return usesHeldKey(ctx.get(TARGET)) ? nextNotingHeld(ctx, held, next) : next();
      const owner = ownerOf(ctx);
      const native = nativeFor(ctx, services, 'responses.create');
      const inputItems = normalizeInput(original.input);
      const provider = ctx.get(TARGET)!.provider;
      let body = original;
      let restoredPrevious: string | undefined;
      if (previousId) {
        const previous = await store.get(owner, previousId);
        if (!previous && (!native || !(await providerMayResolve(ctx, held, previousId)))) throw notFound(`No previous response ${previousId}.`, 'previous_response_id');
        // the provider keeps its own responses: it resolves the id itself
        const passThrough = !previous || (native && previous.native && previous.provider === provider);
        if (!passThrough) {
          const chain = await store.chain(owner, previousId);
          body = { ...original, input: [...conversation(chain, native), ...inputItems] };
          if (native) {
            delete body.previous_response_id;
            restoredPrevious = previousId;
          }
        }
      }
      const keepResponse = async (response: Json) => {
        await store.put(owner, {
          id: String(response.id),
          provider,
          // a tool loop's answer is the gateway's own: the provider keeps none of it
          native: native && !ctx.get(ANSWERED_BY_GATEWAY),
          previousId: previousId ?? null,
          response: withPrevious(response, restoredPrevious),
          inputItems,
          routedAs: routedAs(ctx),
        });
      };
      const changedBefore = ctx.get(BODY_CHANGED);
      if (body !== original) {
        ctx.set(BODY, body);
        ctx.set(BODY_CHANGED, true);
      }
      try {
        await next();
      } finally {
        // The next attempt (another target) starts from the caller's own request.
        ctx.set(BODY, original);
        ctx.set(BODY_CHANGED, changedBefore);
      }
      const response = modelAnswer(ctx);
      if (!response || response.kind === 'direct' || response.status < 200 || response.status >= 300) return;
      if (response.kind === 'json') {
        let answer: Json | undefined = response.body as Json | undefined;
        if (answer === undefined && response.raw && (keep || restoredPrevious)) answer = answerJson(ctx, response) as Json | undefined;
        if (!answer) return;
        if (native) await recordHeld(ctx, held, answer.id);
        if (restoredPrevious) {
          answer = withPrevious(answer, restoredPrevious);
          ctx.response = { kind: 'json', status: response.status, headers: response.headers, body: answer };
        }
        if (keep && KEPT_STATUSES.has(answer.status)) await keepResponse(answer);
      } else if (response.kind === 'stream' && (keep || restoredPrevious)) {
        response.parts = keptStream(
          response.parts,
          original,
          keep ? keepResponse : async () => undefined,
          restoredPrevious,
          native ? (id) => recordHeld(ctx, held, id) : undefined,
        );
        response.request = original;
      }
    };
  },
});

/** Runs the attempt as it is, then notes the response a provider made on a key the gateway holds as the caller's. */
async function nextNotingHeld(ctx: GatewayContext, held: HeldObjects, next: () => Promise<void>): Promise<void> {
  await next();
  const response = modelAnswer(ctx);
  if (!response || response.kind === 'direct' || response.status < 200 || response.status >= 300) return;
  if (response.kind === 'json') {
    const answer = (response.body ?? (response.raw ? answerJson(ctx, response) : undefined)) as Json | undefined;
    await recordHeld(ctx, held, answer?.id);
  } else if (response.kind === 'stream') {
    response.parts = keptStream(
      response.parts,
      ctx.get(BODY) ?? {},
      async () => undefined,
      undefined,
      (id) => recordHeld(ctx, held, id),
    );
  }
}
