import type { Operation } from '../../contract/operations.js';
import type { TextPiece } from './text-view.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A piece for `holder[key]` when it is a string (a field of an object, or an item of a list). */
function field(holder: Obj | unknown[], key: string | number, group: number, out: TextPiece[]): void {
  const at = holder as Record<string | number, unknown>;
  const value = at[key];
  if (typeof value !== 'string') return;
  out.push({ text: value, group, write: (text) => (at[key] = text) });
}

/** A string, or a list of strings (completions prompt, embeddings input). */
function stringOrList(body: Obj, key: string, out: TextPiece[]): void {
  const value = body[key];
  if (typeof value === 'string') field(body, key, out.length, out);
  else if (Array.isArray(value)) value.forEach((_, i) => field(value, i, out.length, out));
}

/** Text of `holder[key]`: a string, or the text of its text blocks (text, input_text, output_text, tool results). */
function textBlocks(holder: Obj, key: string, out: TextPiece[]): void {
  const value = holder[key];
  if (typeof value === 'string') {
    field(holder, key, out.length, out);
    return;
  }
  if (!Array.isArray(value)) return;
  for (const part of value) {
    if (!isObj(part)) continue;
    if (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') field(part, 'text', out.length, out);
    else if (part.type === 'tool_result') textBlocks(part, 'content', out);
  }
}

/**
 * The text of a request the input guardrails check: chat message contents (strings and text
 * parts), the completion prompt, embeddings input, image prompts, speech input.
 */
export function inputPieces(operation: Operation, body: unknown): TextPiece[] {
  const out: TextPiece[] = [];
  if (!isObj(body)) return out;
  switch (operation) {
    case 'chat.completions':
      if (Array.isArray(body.messages)) {
        for (const message of body.messages) {
          if (!isObj(message)) continue;
          if (typeof message.content === 'string') field(message, 'content', out.length, out);
          else if (Array.isArray(message.content)) {
            for (const part of message.content) if (isObj(part) && part.type === 'text') field(part, 'text', out.length, out);
          }
        }
      }
      break;
    case 'messages.create':
      // Anthropic's shape: the system prompt, then each message's text (strings and text blocks, tool results)
      if (typeof body.system === 'string') field(body, 'system', out.length, out);
      else if (Array.isArray(body.system)) for (const b of body.system) if (isObj(b) && b.type === 'text') field(b, 'text', out.length, out);
      if (Array.isArray(body.messages)) for (const message of body.messages) if (isObj(message)) textBlocks(message, 'content', out);
      break;
    case 'responses.create':
      if (typeof body.instructions === 'string') field(body, 'instructions', out.length, out);
      if (typeof body.input === 'string') field(body, 'input', out.length, out);
      else if (Array.isArray(body.input)) {
        for (const item of body.input) {
          if (!isObj(item)) continue;
          if (item.type === 'function_call_output') field(item, 'output', out.length, out);
          else textBlocks(item, 'content', out);
        }
      }
      break;
    case 'completions':
      stringOrList(body, 'prompt', out);
      break;
    case 'embeddings':
    case 'moderations':
      stringOrList(body, 'input', out);
      break;
    case 'rerank':
      field(body, 'query', 0, out);
      break;
    case 'images.generations':
      field(body, 'prompt', 0, out);
      break;
    case 'audio.speech':
      field(body, 'input', 0, out);
      break;
    default:
      break;
  }
  return out;
}

/**
 * The text of a JSON answer: each choice's message content (chat) or text (completions); the
 * text blocks of an Anthropic Message; the output_text of a response's message items.
 */
export function outputPieces(body: unknown): TextPiece[] {
  const out: TextPiece[] = [];
  if (isObj(body) && body.type === 'message' && Array.isArray(body.content)) {
    for (const b of body.content) if (isObj(b) && b.type === 'text') field(b, 'text', 0, out);
    return out;
  }
  if (isObj(body) && body.object === 'response' && Array.isArray(body.output)) {
    for (const item of body.output) if (isObj(item) && item.type === 'message') textBlocks(item, 'content', out);
    return out;
  }
  if (!isObj(body) || !Array.isArray(body.choices)) return out;
  body.choices.forEach((choice: unknown, i: number) => {
    if (!isObj(choice)) return;
    const group = typeof choice.index === 'number' ? choice.index : i;
    if (isObj(choice.message)) field(choice.message, 'content', group, out);
    else field(choice, 'text', group, out);
  });
  return out;
}
