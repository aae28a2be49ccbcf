import { randomBytes } from 'node:crypto';

type Json = Record<string, unknown>;

/** An id for an input item that came without one. */
function newItemId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/**
 * A request's input as Responses items, the way input_items lists them: a string becomes one
 * user message; messages get their `type` and content parts (input_text, or output_text for the
 * assistant); every item gets an id.
 */
export function normalizeInput(input: unknown): Json[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ id: newItemId('msg'), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  return input.map((raw: Json) => {
    const item: Json = { ...raw };
    if (item.type === undefined && item.role !== undefined) item.type = 'message';
    if (item.type === 'message' && typeof item.content === 'string') {
      item.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }];
    }
    if (typeof item.id !== 'string' || item.id === '') item.id = newItemId(ID_PREFIX[item.type as string] ?? 'item');
    return item;
  });
}

/** Output items of a kept response, as input for the next turn (the status fields dropped). */
export function outputAsInput(output: unknown): Json[] {
  if (!Array.isArray(output)) return [];
  return output.map((item: Json) => {
    const { status: _status, ...rest } = item ?? {};
    return rest;
  });
}
