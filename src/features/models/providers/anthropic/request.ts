import { badRequest } from '../../../../contract/errors/gateway-error.js';
import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { cacheControlOf, contentPieces, systemTexts } from '../shared/chat-content.js';
import { jsonResponseMode } from '../shared/json-response.js';
import { anthropicThinking, thinkingRequested } from '../shared/reasoning.js';
import { toAnthropicMessages } from './messages.js';
import { arrayOf, isJsonObject, objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';

/** max_tokens is required by Anthropic; this is sent when the caller gives none. */
export const DEFAULT_MAX_TOKENS = 4096;
const PROVIDER = 'anthropic';

/**
 * Anthropic can force a tool, so json_schema answers come through a forced json_response tool,
 * except with thinking on (a forced tool is refused then): the schema is asked for in the system prompt.
 */
export function forcedJsonTool(request: JsonObject): boolean {
  return !thinkingRequested(request);
}

/** True when some system message (or one of its parts) sets a cache breakpoint. */
function systemCached(messages: JsonObject[]): boolean {
  return messages.some((m) => (m.role === 'system' || m.role === 'developer') && (m.cache_control || objectsOf(m.content).some((p) => p.cache_control)));
}

/** The system prompt: one string, or text blocks when a cache breakpoint sits in it. */
function system(request: JsonObject): string | Array<Record<string, unknown>> | undefined {
  const messages = arrayOf(request.messages).map(objectOf);
  const json = jsonResponseMode(request, { forcedTool: forcedJsonTool(request) });
  if (systemCached(messages)) {
    const blocks: Array<Record<string, unknown>> = [];
    messages.forEach((m, i) => {
      if (m.role !== 'system' && m.role !== 'developer') return;
      const pieces = contentPieces(m.content, `messages[${i}].content`, PROVIDER);
      for (const piece of pieces) {
        if (piece.kind !== 'text') throw badRequest(`${PROVIDER} takes only text in system messages.`, `messages[${i}].content`);
        if (piece.text === '') continue;
        blocks.push(piece.cacheControl ? { type: 'text', text: piece.text, cache_control: piece.cacheControl } : { type: 'text', text: piece.text });
      }
      const cache = cacheControlOf(m.cache_control, `messages[${i}].cache_control`);
      const last = blocks[blocks.length - 1];
      if (cache && last && last.cache_control === undefined) last.cache_control = cache;
    });
    if (json?.kind === 'instruction') blocks.push({ type: 'text', text: json.text });
    return blocks.length ? blocks : undefined;
  }
  const texts = systemTexts(messages, PROVIDER);
  if (json?.kind === 'instruction') texts.push(json.text);
  return texts.length ? texts.join('\n\n') : undefined;
}

function tools(request: JsonObject): unknown[] | undefined {
  const json = jsonResponseMode(request, { forcedTool: forcedJsonTool(request) });
  if (json?.kind === 'tool') return [{ name: json.name, description: json.description, input_schema: json.schema }];
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  return request.tools.map((value: unknown, i: number) => {
    const tool = objectOf(value);
    const fn = objectOf(tool.function);
    const out: Record<string, unknown> = {
      name: fn.name,
      input_schema: fn.parameters ?? { type: 'object', properties: {} },
    };
    if (fn.description) out.description = fn.description;
    const cache = cacheControlOf(tool.cache_control ?? fn.cache_control, `tools[${i}].cache_control`);
    if (cache) out.cache_control = cache;
    return out;
  });
}

/** Thinking (the caller's own `thinking`, or one derived from reasoning_effort) and the max_tokens that goes with it. */
function thinkingAndMax(request: JsonObject) {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  return anthropicThinking(request, typeof asked === 'number' ? asked : undefined, DEFAULT_MAX_TOKENS);
}

function toolChoice(request: JsonObject): Record<string, unknown> | undefined {
  const json = jsonResponseMode(request, { forcedTool: forcedJsonTool(request) });
  if (json?.kind === 'tool') return { type: 'tool', name: json.name };
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  let out: Record<string, unknown> | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (isJsonObject(choice) && objectOf(choice.function).name) out = { type: 'tool', name: objectOf(choice.function).name };
  if (request.parallel_tool_calls === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

/** OpenAI chat request -> Anthropic Messages API request. Unknown fields (top_k, thinking, ...) pass through. */
export const ANTHROPIC_CHAT_TABLE: ParamTable = {
  ...OPENAI_ONLY_CHAT_FIELDS,
  model: 'model',
  system: { compute: system },
  messages: { transform: (messages) => toAnthropicMessages(arrayOf(messages)) },
  max_tokens: { compute: (r) => thinkingAndMax(r).maxTokens },
  max_completion_tokens: false,
  thinking: { compute: (r) => thinkingAndMax(r).thinking },
  reasoning_effort: false,
  thinking_blocks: false,
  // with thinking on Anthropic takes no temperature or top_k, and top_p only from 0.95
  temperature: { min: 0, max: 1, transform: (t, r) => (thinkingRequested(r) ? undefined : t) },
  top_p: { min: 0, max: 1, transform: (p, r) => (thinkingRequested(r) ? Math.max(Number(p), 0.95) : p) },
  top_k: { transform: (k, r) => (thinkingRequested(r) ? undefined : k) },
  stop: { to: 'stop_sequences', transform: stopList },
  tools: { compute: tools },
  tool_choice: { compute: toolChoice },
  parallel_tool_calls: false,
  response_format: false,
  user: 'metadata.user_id',
  stream: 'stream',
  n: oneChoiceOnly(PROVIDER),
  seed: false,
  presence_penalty: false,
  frequency_penalty: false,
};

export const toAnthropicRequest = compileParamTable(ANTHROPIC_CHAT_TABLE, { passUnknown: true });
