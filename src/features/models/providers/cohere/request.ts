import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { toCohereMessages } from './messages.js';
import { reasoningEffort, THINKING_BUDGETS } from '../shared/reasoning.js';
import { arrayOf } from '../../../../contract/json.js';

const PROVIDER = 'cohere';

function namedTool(request: Record<string, any>): string | undefined {
  const choice = request.tool_choice;
  return choice && typeof choice === 'object' && typeof choice.function?.name === 'string' ? choice.function.name : undefined;
}

/** Tools as Cohere takes them (OpenAI's shape); a named tool_choice keeps only that tool. */
function tools(request: Record<string, any>): unknown[] | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const only = namedTool(request);
  const kept = only ? request.tools.filter((t: any) => t.function?.name === only) : request.tools;
  return kept.map((tool: any) => {
    const fn: Record<string, unknown> = { name: tool.function?.name };
    if (tool.function?.description) fn.description = tool.function.description;
    fn.parameters = tool.function?.parameters ?? { type: 'object', properties: {} };
    return { type: 'function', function: fn };
  });
}

/** Cohere knows REQUIRED and NONE; auto is its default; a named tool is REQUIRED with only that tool. */
function toolChoice(request: Record<string, any>): string | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  if (choice === 'required' || namedTool(request)) return 'REQUIRED';
  if (choice === 'none') return 'NONE';
  return undefined;
}

function responseFormat(format: any): Record<string, unknown> | undefined {
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type === 'json_schema') return { type: 'json_object', json_schema: format.json_schema?.schema ?? { type: 'object' } };
  return undefined;
}

/** reasoning_effort -> Cohere's `thinking` (reasoning models); a `thinking` the caller sent wins. */
function thinking(request: Record<string, any>): Record<string, unknown> | undefined {
  if (request.thinking && typeof request.thinking === 'object') return request.thinking;
  const effort = reasoningEffort(request);
  if (!effort) return undefined;
  return effort === 'none' ? { type: 'disabled' } : { type: 'enabled', token_budget: THINKING_BUDGETS[effort] };
}

/** OpenAI chat request -> Cohere v2 chat request. Unknown fields (k, safety_mode, documents, ...) pass through. */
export const COHERE_CHAT_TABLE: ParamTable = {
  ...OPENAI_ONLY_CHAT_FIELDS,
  model: 'model',
  messages: { transform: (messages) => toCohereMessages(arrayOf(messages)) },
  max_completion_tokens: { to: 'max_tokens', default: (r: Record<string, any>) => r.max_tokens },
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
