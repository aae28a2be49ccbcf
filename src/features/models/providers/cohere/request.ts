import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { toCohereMessages } from './messages.js';
import { reasoningEffort, THINKING_BUDGETS } from '../shared/reasoning.js';
import { arrayOf, isJsonObject, objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';

const PROVIDER = 'cohere';

function namedTool(request: JsonObject): string | undefined {
  const name = isJsonObject(request.tool_choice) ? objectOf(request.tool_choice.function).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** Tools as Cohere takes them (OpenAI's shape); a named tool_choice keeps only that tool. */
function tools(request: JsonObject): unknown[] | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const only = namedTool(request);
  const all = objectsOf(request.tools).map((tool) => objectOf(tool.function));
  const kept = only ? all.filter((f) => f.name === only) : all;
  return kept.map((tool) => {
    const fn: Record<string, unknown> = { name: tool.name };
    if (tool.description) fn.description = tool.description;
    fn.parameters = tool.parameters ?? { type: 'object', properties: {} };
    return { type: 'function', function: fn };
  });
}

/** Cohere knows REQUIRED and NONE; auto is its default; a named tool is REQUIRED with only that tool. */
function toolChoice(request: JsonObject): string | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  if (choice === 'required' || namedTool(request)) return 'REQUIRED';
  if (choice === 'none') return 'NONE';
  return undefined;
}

function responseFormat(value: unknown): Record<string, unknown> | undefined {
  const format = objectOf(value);
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') return { type: 'json_object', json_schema: objectOf(format.json_schema).schema ?? { type: 'object' } };
  return undefined;
}

/** reasoning_effort -> Cohere's `thinking` (reasoning models); a `thinking` the caller sent wins. */
function thinking(request: JsonObject): Record<string, unknown> | undefined {
  if (isJsonObject(request.thinking)) return request.thinking;
  const effort = reasoningEffort(request);
  if (!effort) return undefined;
  return effort === 'none' ? { type: 'disabled' } : { type: 'enabled', token_budget: THINKING_BUDGETS[effort] };
}

/** OpenAI chat request -> Cohere v2 chat request. Unknown fields (k, safety_mode, documents, ...) pass through. */
export const COHERE_CHAT_TABLE: ParamTable = {
  ...OPENAI_ONLY_CHAT_FIELDS,
  model: 'model',
  messages: { transform: (messages) => toCohereMessages(arrayOf(messages)) },
  max_completion_tokens: { to: 'max_tokens', default: (r: JsonObject) => r.max_tokens },
  max_tokens: false,
  temperature: { min: 0 },
  top_p: { to: 'p', min: 0.01, max: 0.99 },
  stop: { to: 'stop_sequences', transform: stopList },
  seed: 'seed',
  frequency_penalty: { min: 0, max: 1 },
  presence_penalty: { min: 0, max: 1 },
  tools: { compute: tools },
  tool_choice: { compute: toolChoice },
  parallel_tool_calls: false,
  response_format: { transform: responseFormat },
  stream: 'stream',
  n: oneChoiceOnly(PROVIDER),
  user: false,
  reasoning_effort: false,
  thinking: { compute: thinking },
};

export const toCohereRequest = compileParamTable(COHERE_CHAT_TABLE, { passUnknown: true });
