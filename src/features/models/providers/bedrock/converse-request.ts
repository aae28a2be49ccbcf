import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { OPENAI_ONLY_CHAT_FIELDS, oneChoiceOnly, stopList } from '../shared/openai-fields.js';
import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import { cacheControlOf, contentPieces } from '../shared/chat-content.js';
import { jsonResponseMode } from '../shared/json-response.js';
import { reasoningEffort, THINKING_BUDGETS } from '../shared/reasoning.js';
import { CACHE_POINT, hasToolHistory, toConverseMessages } from './converse-messages.js';
import { arrayOf, isJsonObject, objectOf, type JsonObject } from '../../../../contract/json.js';

const PROVIDER = 'bedrock';
/** Not every Bedrock model can be forced to call a tool: JSON answers are asked for in the system prompt. */
export const FORCED_JSON_TOOL = false;
/** maxTokens sent beside a thinking budget when the caller set none (the budget must stay below it). */
const ANSWER_TOKENS_AFTER_THINKING = 4096;

/** System messages as text blocks, a cachePoint after each part (or message) that sets cache_control. */
function system(request: JsonObject): Array<Record<string, unknown>> | undefined {
  const out: Array<Record<string, unknown>> = [];
  arrayOf(request.messages).forEach((message, i) => {
    const m = objectOf(message);
    if (m.role !== 'system' && m.role !== 'developer') return;
    const texts: string[] = [];
    let cached = false;
    const flush = () => {
      const text = texts.join('');
      texts.length = 0;
      if (text !== '') out.push({ text });
    };
    contentPieces(m.content, `messages[${i}].content`, PROVIDER).forEach((piece) => {
      if (piece.kind !== 'text') throw badRequest(`${PROVIDER} takes only text in messages[${i}].content.`, `messages[${i}].content`);
      texts.push(piece.text);
      if (piece.cacheControl) {
        flush();
        out.push({ ...CACHE_POINT });
        cached = true;
      }
    });
    flush();
    if (cacheControlOf(m.cache_control, `messages[${i}].cache_control`) && !cached) out.push({ ...CACHE_POINT });
  });
  const json = jsonResponseMode(request, { forcedTool: FORCED_JSON_TOOL });
  if (json?.kind === 'instruction') out.push({ text: json.text });
  return out.length ? out : undefined;
}

function toolConfig(request: JsonObject): Record<string, unknown> | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const tools = request.tools.flatMap((value: unknown, i: number) => {
    const tool = objectOf(value);
    const fn = objectOf(tool.function);
    const spec: Record<string, unknown> = { name: fn.name };
    if (fn.description) spec.description = fn.description;
    spec.inputSchema = { json: fn.parameters ?? { type: 'object', properties: {} } };
    const cache = cacheControlOf(tool.cache_control ?? fn.cache_control, `tools[${i}].cache_control`);
    return cache ? [{ toolSpec: spec }, { ...CACHE_POINT }] : [{ toolSpec: spec }];
  });
  const choice = request.tool_choice;
  // Converse has no "none": the tools are left out, unless the conversation already uses them.
  if (choice === 'none') return hasToolHistory(request.messages) ? { tools } : undefined;
  const config: Record<string, unknown> = { tools };
  if (choice === 'auto') config.toolChoice = { auto: {} };
  else if (choice === 'required') config.toolChoice = { any: {} };
  else if (isJsonObject(choice) && objectOf(choice.function).name) config.toolChoice = { tool: { name: objectOf(choice.function).name } };
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
  messages: { transform: (messages) => toConverseMessages(arrayOf(messages)) },
  system: { compute: system },
  'inferenceConfig.maxTokens': { compute: (r) => reasoningFields(r).maxTokens },
  max_completion_tokens: false,
  max_tokens: false,
  reasoning_effort: false,
  'additionalModelRequestFields.thinking': { compute: (r) => reasoningFields(r).thinking },
  'additionalModelRequestFields.reasoning_effort': { compute: (r) => reasoningFields(r).reasoningEffort },
  'additionalModelRequestFields.reasoningConfig': { compute: (r) => reasoningFields(r).reasoningConfig },
  // with Claude thinking on, no temperature, and topP only from 0.95
  temperature: { to: 'inferenceConfig.temperature', min: 0, max: 1, transform: (t, r) => (reasoningFields(r).thinking ? undefined : t) },
  top_p: { to: 'inferenceConfig.topP', min: 0, max: 1, transform: (p, r) => (reasoningFields(r).thinking ? Math.max(Number(p), 0.95) : p) },
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

/** Bedrock model families and how each takes reasoning_effort (in additionalModelRequestFields). */
const CLAUDE = /anthropic\.claude/i;
const GPT_OSS = /openai\.gpt-oss/i;
const NOVA_REASONING = /amazon\.nova-(2|premier)/i;

interface ReasoningFields {
  maxTokens?: number;
  thinking?: unknown;
  reasoningEffort?: string;
  reasoningConfig?: unknown;
}

/**
 * reasoning_effort per model family: Claude takes Anthropic's `thinking` with a token budget
 * (kept below maxTokens, which is raised when the caller set none), gpt-oss models their own
 * `reasoning_effort`, Nova its `reasoningConfig`. A `thinking` the caller sent wins.
 */
function reasoningFields(request: JsonObject): ReasoningFields {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  const maxTokens = typeof asked === 'number' ? asked : undefined;
  const model = String(request.model ?? '');
  if (request.thinking && typeof request.thinking === 'object') return { maxTokens, thinking: request.thinking };
  const effort = reasoningEffort(request);
  if (!effort) return { maxTokens };
  if (CLAUDE.test(model)) {
    if (effort === 'none') return { maxTokens };
    let budget = THINKING_BUDGETS[effort];
    if (maxTokens === undefined) return { maxTokens: budget + ANSWER_TOKENS_AFTER_THINKING, thinking: { type: 'enabled', budget_tokens: budget } };
    if (budget >= maxTokens) budget = maxTokens - 1;
    if (budget < THINKING_BUDGETS.minimal) {
      throw semanticError(
        `reasoning_effort needs max_tokens above ${THINKING_BUDGETS.minimal} with Claude models (the thinking budget must be at least ${THINKING_BUDGETS.minimal} tokens).`,
        'max_tokens',
      );
    }
    return { maxTokens, thinking: { type: 'enabled', budget_tokens: budget } };
  }
  const level = effort === 'minimal' ? 'low' : effort === 'xhigh' || effort === 'max' ? 'high' : effort;
  if (GPT_OSS.test(model)) return { maxTokens, reasoningEffort: level === 'none' ? 'low' : level };
  if (NOVA_REASONING.test(model)) return { maxTokens, reasoningConfig: level === 'none' ? { type: 'disabled' } : { type: 'enabled', maxReasoningEffort: level } };
  return { maxTokens };
}

export const toConverseRequest = compileParamTable(BEDROCK_CONVERSE_TABLE, { unknownTo: 'additionalModelRequestFields' });

/** The CountTokens body of a chat request: the Converse input (messages, system, tools) to count. */
export function countTokensBody(request: JsonObject): Record<string, unknown> {
  const converse = toConverseRequest(request);
  const input: Record<string, unknown> = { messages: converse.messages };
  if (converse.system) input.system = converse.system;
  if (converse.toolConfig) input.toolConfig = converse.toolConfig;
  return { input: { converse: input } };
}
