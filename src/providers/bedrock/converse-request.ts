import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { systemTexts } from '../shared/chat-content.js';
import { jsonResponseMode } from '../shared/json-response.js';
import { hasToolHistory, toConverseMessages } from './converse-messages.js';

const PROVIDER = 'bedrock';
/** Not every Bedrock model can be forced to call a tool: JSON answers are asked for in the system prompt. */
export const FORCED_JSON_TOOL = false;

function system(request: Record<string, any>): Array<{ text: string }> | undefined {
  const texts = systemTexts(request.messages ?? [], PROVIDER);
  const json = jsonResponseMode(request, { forcedTool: FORCED_JSON_TOOL });
  if (json?.kind === 'instruction') texts.push(json.text);
  return texts.length ? texts.map((text) => ({ text })) : undefined;
}

function toolConfig(request: Record<string, any>): Record<string, unknown> | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const tools = request.tools.map((tool: any) => {
    const spec: Record<string, unknown> = { name: tool.function?.name };
    if (tool.function?.description) spec.description = tool.function.description;
    spec.inputSchema = { json: tool.function?.parameters ?? { type: 'object', properties: {} } };
    return { toolSpec: spec };
  });
  const choice = request.tool_choice;
  // Converse has no "none": the tools are left out, unless the conversation already uses them.
  if (choice === 'none') return hasToolHistory(request.messages) ? { tools } : undefined;
  const config: Record<string, unknown> = { tools };
  if (choice === 'auto') config.toolChoice = { auto: {} };
  else if (choice === 'required') config.toolChoice = { any: {} };
  else if (choice && typeof choice === 'object' && choice.function?.name) config.toolChoice = { tool: { name: choice.function.name } };
  return config;
}

/**
 * OpenAI chat request -> Bedrock Converse request (the model goes in the path). Fields the
 * table does not name (top_k, ...) go to additionalModelRequestFields.
 */
export const BEDROCK_CONVERSE_TABLE: ParamTable = {
  ...OPENAI_ONLY_CHAT_FIELDS,
  model: false,
  stream: false,
  messages: { transform: toConverseMessages },
  system: { compute: system },
  max_completion_tokens: { to: 'inferenceConfig.maxTokens', default: (r: Record<string, any>) => r.max_tokens },
  max_tokens: false,
  temperature: { to: 'inferenceConfig.temperature', min: 0, max: 1 },
  top_p: { to: 'inferenceConfig.topP', min: 0, max: 1 },
  stop: { to: 'inferenceConfig.stopSequences', transform: stopList },
  toolConfig: { compute: toolConfig },
  tools: false,
  tool_choice: false,
  parallel_tool_calls: false,
  response_format: false,
  n: oneChoiceOnly(PROVIDER),
  user: false,
  seed: false,
  presence_penalty: false,
  frequency_penalty: false,
};

export const toConverseRequest = compileParamTable(BEDROCK_CONVERSE_TABLE, { unknownTo: 'additionalModelRequestFields' });
