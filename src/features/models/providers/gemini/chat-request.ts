/**
 * An OpenAI chat request -> a Gemini GenerateContentRequest (the Gemini API and Vertex AI
 * take the same body). Request fields go through the parameter table (tools, tool choice and
 * response format by their converters); the messages become contents and systemInstruction.
 */
import { badRequest } from '../../../../contract/errors/gateway-error.js';
import { compileParamTable, type ParamTable } from '../shared/param-table.js';
import { toGeminiSchema } from './json-schema.js';
import { reasoningEffort, thinkingBlocksOf, toolCallSignature, type ReasoningEffort } from '../shared/reasoning.js';
import { modelTurnParts } from './thoughts.js';
import { objectOf } from '../../../../contract/json.js';

type Json = Record<string, unknown>;

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { name: string; args: Json };
  functionResponse?: { name: string; response: Json };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** OpenAI request fields -> GenerateContentRequest fields. Fields not named here are dropped. */
export const GEMINI_CHAT_PARAMS: ParamTable = {
  temperature: 'generationConfig.temperature',
  top_p: 'generationConfig.topP',
  top_k: 'generationConfig.topK',
  max_tokens: 'generationConfig.maxOutputTokens',
  max_completion_tokens: 'generationConfig.maxOutputTokens',
  stop: { to: 'generationConfig.stopSequences', transform: (v) => (typeof v === 'string' ? [v] : v) },
  n: 'generationConfig.candidateCount',
  seed: 'generationConfig.seed',
  presence_penalty: 'generationConfig.presencePenalty',
  frequency_penalty: 'generationConfig.frequencyPenalty',
  tools: { to: 'tools', transform: (tools) => toolsFrom(tools, 'tools') },
  functions: { to: 'tools', transform: (functions, request) => (request.tools ? undefined : toolsFrom(functions, 'functions')) },
  tool_choice: { to: 'toolConfig', transform: (choice, request) => (hasTools(request) ? toolConfigFrom(choice) : undefined) },
  function_call: { to: 'toolConfig', transform: (choice, request) => (request.tool_choice || !hasTools(request) ? undefined : toolConfigFrom(choice)) },
  'generationConfig.responseMimeType': { compute: (request) => (isJsonFormat(request.response_format) ? 'application/json' : undefined) },
  'generationConfig.responseSchema': {
    compute: (request) => {
      const format = objectOf(request.response_format);
      return format.type === 'json_schema' ? toGeminiSchema(objectOf(format.json_schema).schema) : undefined;
    },
  },
  'generationConfig.thinkingConfig': { compute: thinkingConfig },
  safety_settings: 'safetySettings',
  cached_content: 'cachedContent',
};

/** Gemini 3 models take a thinking level; earlier thinking models a token budget. */
const THINKING_LEVEL_MODELS = /gemini-3/i;
const THINKING_LEVELS: Record<Exclude<ReasoningEffort, 'none'>, string> = { minimal: 'low', low: 'low', medium: 'high', high: 'high', xhigh: 'high', max: 'high' };
const THINKING_BUDGETS: Record<ReasoningEffort, number> = { none: 0, minimal: 512, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 24576 };

/**
 * reasoning_effort (or an Anthropic-style `thinking: {type, budget_tokens}`) -> thinkingConfig:
 * a level or a budget by model generation, with the thought summaries included so that the
 * reasoning reaches the caller.
 */
function thinkingConfig(request: Json): Json | undefined {
  const thinking = request.thinking;
  if (isObject(thinking) && typeof thinking.type === 'string') {
    if (thinking.type === 'disabled') return { thinkingBudget: 0 };
    const budget = typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : -1;
    return { thinkingBudget: budget, includeThoughts: true };
  }
  const effort = reasoningEffort(request);
  if (!effort) return undefined;
  const model = typeof request.model === 'string' ? request.model : '';
  if (THINKING_LEVEL_MODELS.test(model)) {
    return effort === 'none' ? { thinkingLevel: 'low' } : { thinkingLevel: THINKING_LEVELS[effort], includeThoughts: true };
  }
  return effort === 'none' ? { thinkingBudget: 0 } : { thinkingBudget: THINKING_BUDGETS[effort], includeThoughts: true };
}

const mapParams = compileParamTable(GEMINI_CHAT_PARAMS);

/** The whole GenerateContentRequest for an OpenAI chat request. */
export function toGeminiRequest(request: Json): Json {
  const out = mapParams(request);
  const { contents, systemInstruction } = toGeminiContents(request.messages);
  const body: Json = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  return Object.assign(body, out);
}

/** Gemini takes a toolConfig only along with function declarations. */
function hasTools(request: Json): boolean {
  return (Array.isArray(request.tools) && request.tools.length > 0) || (Array.isArray(request.functions) && request.functions.length > 0);
}

function isJsonFormat(format: unknown): boolean {
  return isObject(format) && (format.type === 'json_object' || format.type === 'json_schema');
}

/** tools (or legacy functions) -> [{ functionDeclarations }]. */
function toolsFrom(tools: unknown, param: string): Json[] | undefined {
  if (!Array.isArray(tools)) return undefined;
  const declarations: Json[] = [];
  tools.forEach((tool, i) => {
    const fn = param === 'functions' ? tool : tool?.function;
    if (param === 'tools' && tool?.type !== 'function') {
      throw badRequest(`${param}[${i}]: only tools of type "function" can be sent to this provider.`, `${param}[${i}].type`);
    }
    if (!isObject(fn) || typeof fn.name !== 'string') throw badRequest(`${param}[${i}] needs a function name.`, `${param}[${i}]`);
    const declaration: Json = { name: fn.name };
    if (typeof fn.description === 'string') declaration.description = fn.description;
    const parameters = toGeminiSchema(fn.parameters);
    if (parameters && !(parameters.type === 'object' && !parameters.properties && !parameters.anyOf)) declaration.parameters = parameters;
    declarations.push(declaration);
  });
  return declarations.length > 0 ? [{ functionDeclarations: declarations }] : undefined;
}

/** tool_choice -> toolConfig.functionCallingConfig. */
function toolConfigFrom(choice: unknown): Json | undefined {
  const config = (mode: string, names?: string[]) => ({ functionCallingConfig: names ? { mode, allowedFunctionNames: names } : { mode } });
  if (choice === 'auto') return config('AUTO');
  if (choice === 'none') return config('NONE');
  if (choice === 'required') return config('ANY');
  if (!isObject(choice)) return undefined;
  const name = objectOf(choice.function).name ?? choice.name;
  if (typeof name === 'string') return config('ANY', [name]);
  // allowed_tools arrives resolved into the tools it allows (shared/translated-chat.ts)
  return undefined;
}

/** messages -> contents (roles user/model, consecutive turns of one role merged) + systemInstruction. */
export function toGeminiContents(messages: unknown): { contents: GeminiContent[]; systemInstruction?: { parts: GeminiPart[] } } {
  if (!Array.isArray(messages)) throw badRequest('messages must be an array.', 'messages');
  const contents: GeminiContent[] = [];
  const system: GeminiPart[] = [];
  const push = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  messages.forEach((message: Json, i: number) => {
    const param = `messages[${i}]`;
    switch (message?.role) {
      case 'system':
      case 'developer':
        for (const text of textsOf(message.content, `${param}.content`)) if (text !== '') system.push({ text });
        break;
      case 'user':
        push('user', userParts(message.content, `${param}.content`));
        break;
      case 'assistant':
        push('model', assistantParts(message, param));
        break;
      case 'tool':
        push('user', [{ functionResponse: { name: toolNameFor(messages, i), response: toolResponse(message.content, `${param}.content`) } }]);
        break;
      case 'function':
        push('user', [{ functionResponse: { name: String(message.name ?? ''), response: toolResponse(message.content, `${param}.content`) } }]);
        break;
      default:
        throw badRequest(`${param}.role "${message?.role}" is not a chat role.`, `${param}.role`);
    }
  });
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}

function userParts(content: unknown, param: string): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw badRequest(`${param} must be a string or an array of content parts.`, param);
  return content.map((part: Json, j: number) => contentPart(part, `${param}[${j}]`)).filter((p): p is GeminiPart => p !== undefined);
}

function contentPart(value: unknown, param: string): GeminiPart | undefined {
  const part = objectOf(value);
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' && part.text !== '' ? { text: part.text } : undefined;
    case 'image_url': {
      const url = typeof part.image_url === 'string' ? part.image_url : objectOf(part.image_url).url;
      if (typeof url !== 'string') throw badRequest(`${param}.image_url.url is required.`, `${param}.image_url.url`);
      return mediaPart(url, `${param}.image_url.url`, 'image/jpeg');
    }
    case 'input_audio': {
      const audio = objectOf(part.input_audio);
      if (typeof audio.data !== 'string') throw badRequest(`${param}.input_audio.data is required.`, `${param}.input_audio.data`);
      return { inlineData: { mimeType: `audio/${audio.format === 'mp3' ? 'mp3' : String(audio.format ?? 'wav')}`, data: audio.data } };
    }
    case 'file': {
      const file = objectOf(part.file);
      if (typeof file.file_data === 'string') {
        if (file.file_data.startsWith('data:')) return mediaPart(file.file_data, `${param}.file.file_data`, 'application/pdf');
        return { inlineData: { mimeType: mimeFromName(file.filename) ?? 'application/pdf', data: file.file_data } };
      }
      if (typeof file.file_id === 'string') return { fileData: { fileUri: file.file_id } };
      throw badRequest(`${param}.file needs file_data or file_id.`, `${param}.file`);
    }
    default:
      throw badRequest(`${param}.type "${part?.type}" is not supported by this provider.`, `${param}.type`);
  }
}

/** data: URLs are sent inline; http(s) and gs:// URLs by reference. */
function mediaPart(url: string, param: string, fallbackMime: string): GeminiPart {
  if (url.startsWith('data:')) {
    const match = /^data:([^;,]+)?((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
    if (!match) throw badRequest(`${param}: a data URL must be base64 encoded (data:<type>;base64,...).`, param);
    return { inlineData: { mimeType: match[1] ?? fallbackMime, data: match[3]! } };
  }
  if (/^(https?|gs):\/\//i.test(url)) return { fileData: { mimeType: mimeFromName(url) ?? fallbackMime, fileUri: url } };
  throw badRequest(`${param} must be an http(s) URL or a base64 data URL.`, param);
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  mov: 'video/mov',
  webm: 'video/webm',
};

function mimeFromName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const path = name.split(/[?#]/)[0]!;
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext && Object.hasOwn(MIME_BY_EXTENSION, ext) ? MIME_BY_EXTENSION[ext] : undefined;
}

/** An assistant message -> the model turn: thought parts, text, function calls, each with the signature it came with. */
function assistantParts(message: Json, param: string): GeminiPart[] {
  const texts = message.content !== undefined && message.content !== null ? textsOf(message.content, `${param}.content`) : [];
  const calls: Json[] = Array.isArray(message.tool_calls) ? message.tool_calls : message.function_call ? [{ function: message.function_call }] : [];
  const callParts = calls.map((call, k) => {
    const fn = call?.function;
    const where = message.tool_calls ? `${param}.tool_calls[${k}].function` : `${param}.function_call`;
    if (!isObject(fn) || typeof fn.name !== 'string') throw badRequest(`${where}.name is required.`, `${where}.name`);
    const part: GeminiPart = { functionCall: { name: fn.name, args: parseArguments(fn.arguments, `${where}.arguments`) } };
    const signature = toolCallSignature(call);
    if (signature) part.thoughtSignature = signature;
    return part;
  });
  return modelTurnParts(thinkingBlocksOf(message, param), texts, callParts);
}

function parseArguments(raw: unknown, param: string): Json {
  if (raw === undefined || raw === null || raw === '') return {};
  if (isObject(raw)) return raw;
  if (typeof raw === 'string') {
    try {
      const parsed = JSON.parse(raw);
      if (isObject(parsed)) return parsed;
    } catch {
      // reported below
    }
  }
  throw badRequest(`${param} must be a JSON object encoded as a string.`, param);
}

/** The function name of a tool result: from the nearest earlier assistant message that made the call. */
function toolNameFor(messages: Json[], index: number): string {
  const id = messages[index]!.tool_call_id;
  const param = `messages[${index}].tool_call_id`;
  if (typeof id !== 'string' || id === '') throw badRequest(`${param} is required.`, param);
  for (let i = index - 1; i >= 0; i--) {
    const calls = messages[i]?.role === 'assistant' ? messages[i]!.tool_calls : undefined;
    if (!Array.isArray(calls)) continue;
    const call = calls.find((c: Json) => c?.id === id);
    if (call && typeof call.function?.name === 'string') return call.function.name;
  }
  if (typeof messages[index]!.name === 'string') return messages[index]!.name;
  throw badRequest(`${param} "${id}" does not match a tool call of an earlier assistant message.`, param);
}

/** A tool result -> functionResponse.response (a JSON object, as Gemini requires). */
function toolResponse(content: unknown, param: string): Json {
  const text = typeof content === 'string' ? content : textsOf(content, param).join('');
  try {
    const parsed = JSON.parse(text);
    if (isObject(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { content: text };
}

/** The text pieces of a message content (a string or text parts). */
function textsOf(content: unknown, param: string): string[] {
  if (typeof content === 'string') return [content];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw badRequest(`${param} must be a string or an array of text parts.`, param);
  return content.map((part: Json, j: number) => {
    if (part?.type === 'text' && typeof part.text === 'string') return part.text;
    if (part?.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
    throw badRequest(`${param}[${j}] must be a text part here.`, `${param}[${j}]`);
  });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
