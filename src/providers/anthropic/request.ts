import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { systemTexts } from '../shared/chat-content.js';
import { jsonResponseMode } from '../shared/json-response.js';
import { toAnthropicMessages } from './messages.js';

/** max_tokens is required by Anthropic; this is sent when the caller gives none. */
export const DEFAULT_MAX_TOKENS = 4096;
const PROVIDER = 'anthropic';
/** Anthropic can force a tool, so json_schema answers come through a forced json_response tool. */
export const FORCED_JSON_TOOL = true;

function system(request: Record<string, any>): string | undefined {
  const texts = systemTexts(request.messages ?? [], PROVIDER);
  const json = jsonResponseMode(request, { forcedTool: FORCED_JSON_TOOL });
  if (json?.kind === 'instruction') texts.push(json.text);
  return texts.length ? texts.join('\n\n') : undefined;
}

function tools(request: Record<string, any>): unknown[] | undefined {
  const json = jsonResponseMode(request, { forcedTool: FORCED_JSON_TOOL });
  if (json?.kind === 'tool') return [{ name: json.name, description: json.description, input_schema: json.schema }];
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  return request.tools.map((tool: any) => {
    const out: Record<string, unknown> = {
      name: tool.function?.name,
      input_schema: tool.function?.parameters ?? { type: 'object', properties: {} },
    };
    if (tool.function?.description) out.description = tool.function.description;
    return out;
  });
}

function toolChoice(request: Record<string, any>): Record<string, unknown> | undefined {
  const json = jsonResponseMode(request, { forcedTool: FORCED_JSON_TOOL });
  if (json?.kind === 'tool') return { type: 'tool', name: json.name };
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  let out: Record<string, unknown> | undefined;
  if (choice === 'auto') out = { type: 'auto' };
  else if (choice === 'none') out = { type: 'none' };
  else if (choice === 'required') out = { type: 'any' };
  else if (choice && typeof choice === 'object' && choice.function?.name) out = { type: 'tool', name: choice.function.name };
  if (request.parallel_tool_calls === false && out?.type !== 'none') out = { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return out;
}

/** OpenAI chat request -> Anthropic Messages API request. Unknown fields (top_k, thinking, ...) pass through. */
export const ANTHROPIC_CHAT_TABLE: ParamTable = {
  ...OPENAI_ONLY_CHAT_FIELDS,
  model: 'model',
  system: { compute: system },
  messages: { transform: toAnthropicMessages },
  max_completion_tokens: { to: 'max_tokens', default: (r: Record<string, any>) => r.max_tokens ?? DEFAULT_MAX_TOKENS },
  max_tokens: false,
  temperature: { min: 0, max: 1 },
  top_p: { min: 0, max: 1 },
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
