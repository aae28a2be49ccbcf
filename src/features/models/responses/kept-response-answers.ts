import { createHash } from 'node:crypto';
import { badRequest, notFound, semanticError } from '../../../contract/errors/gateway-error.js';
import { GATEWAY_SERVED, PROVIDER_KEY, type ModelContext } from '../model-request.js';
import type { ResponseStore, StoredResponse } from './response-store.js';

type Json = Record<string, unknown>;

/** Whose responses these are: the gateway credential, else the provider key (hashed). */
export function ownerOf(ctx: ModelContext): string {
  if (ctx.identity) return `identity:${ctx.identity.id}`;
  return `key:${createHash('sha256')
    .update(ctx.get(PROVIDER_KEY) ?? '')
    .digest('hex')}`;
}

/** Answers with `body`, served by the gateway (no upstream call). */
function json(ctx: ModelContext, body: unknown, status = 200): void {
  ctx.response = { kind: 'json', status, body };
  ctx.set(GATEWAY_SERVED, true);
}

/** A page of input items: limit (1-100, default 20), order (desc by default), after (an item id). */
function itemPage(items: Json[], query: URLSearchParams): Json {
  const limitText = query.get('limit');
  if (limitText !== null && (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100)) throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw badRequest('order must be asc or desc.', 'order');
  const ordered = order === 'desc' ? [...items].reverse() : items;
  const after = query.get('after');
  let start = 0;
  if (after !== null) {
    const at = ordered.findIndex((item) => item.id === after);
    if (at < 0) throw notFound(`No input item ${after} in this response.`, 'after');
    start = at + 1;
  }
  const limit = limitText === null ? 20 : Number(limitText);
  const data = ordered.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
}

/**
 * GET, DELETE, cancel or input_items of a response the gateway keeps for `owner`, answered from
 * the store. A DELETE of one its provider keeps too goes there first (`deleteAtProvider`: true
 * when the provider answered it, whose answer then goes back as it came).
 */
export async function answerKept(ctx: ModelContext, store: ResponseStore, owner: string, record: StoredResponse, deleteAtProvider: () => Promise<boolean>): Promise<void> {
  const id = record.id;
  switch (ctx.endpoint.operation) {
    case 'responses.retrieve':
      return json(ctx, record.response);
    case 'responses.delete': {
      const atProvider = record.native && (await deleteAtProvider());
      await store.delete(owner, id);
      return atProvider ? undefined : json(ctx, { id, object: 'response.deleted', deleted: true });
    }
    case 'responses.cancel':
      throw semanticError(`Response ${id} is ${String(record.response.status)}: only background responses in progress can be cancelled.`, 'response_id');
    default:
      return json(ctx, itemPage(record.inputItems, ctx.query));
  }
}
