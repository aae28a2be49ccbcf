/**
 * A Responses API request -> the OpenAI chat request every translated provider takes:
 * instructions become a system message, input items become messages (function_call items the
 * assistant's tool calls, function_call_output items tool messages, reasoning items the
 * assistant's thinking_blocks, signatures intact), function tools chat tools, reasoning.effort
 * reasoning_effort, text.format response_format, an allowed_tools choice the tools it allows. Gateway-kept settings (store,
 * previous_response_id, metadata) stay out; previous_response_id is resolved before this.
 */
import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { ThinkingBlock } from '../../../contract/stream-parts.js';
import type { ResponsesCreateRequest, ResponseTool } from '../../../generated/requests/responses-create.js';
import { resolveAllowedTools } from '../providers/shared/translated-chat.js';

type Json = Record<string, unknown>;

/** An input content part with the fields read here (each checked where read). */
interface InputPart {
  type?: unknown;
  text?: unknown;
  refusal?: unknown;
  image_url?: string | { url?: unknown } | null;
  detail?: unknown;
  file_data?: unknown;
  filename?: unknown;
  file_id?: unknown;
}

/** An input item with the fields read here (the caller's, or a tool loop's turn; each checked where read). */
interface InputItem {
  type?: unknown;
  role?: unknown;
  content?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  extra_content?: unknown;
  encrypted_content?: unknown;
  output?: unknown;
}

/** The assistant message the translation builds from consecutive assistant items. */
type AssistantMessage = { role: 'assistant'; content: string | null; tool_calls?: Json[]; thinking_blocks?: ThinkingBlock[]; reasoning_content?: string };

/** The roles of an input message other than the assistant's. */
const OTHER_ROLES: readonly unknown[] = ['user', 'system', 'developer'];

/** An input content part -> a chat content part. */
function contentPart(part: InputPart, where: string): Json {
  switch (part?.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'refusal':
      return { type: 'text', text: String(part.refusal ?? '') };
    case 'input_image': {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (typeof url === 'string' && url !== '') return { type: 'image_url', image_url: part.detail ? { url, detail: part.detail } : { url } };
      throw badRequest(`${where}.image_url is required (images by file_id need a provider with the Responses API).`, `${where}.image_url`);
    }
    case 'input_file': {
      if (typeof part.file_data === 'string') {
        const data = part.file_data.startsWith('data:') ? part.file_data : `data:application/pdf;base64,${part.file_data}`;
        return { type: 'file', file: { file_data: data, ...(part.filename ? { filename: part.filename } : {}) } };
      }
      if (typeof part.file_id === 'string') return { type: 'file', file: { file_id: part.file_id } };
      throw badRequest(`${where} needs file_data or file_id.`, where);
    }
    default:
      throw badRequest(`${where}.type "${String(part?.type)}" can be sent only to a provider with the Responses API.`, `${where}.type`);
  }
}

/** A message's content: a string, or parts (kept a string when they are all text). */
function messageContent(content: unknown, where: string): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest(`${where} must be a string or a list of content parts.`, where);
  const parts = content.map((p: InputPart, i: number) => contentPart(p, `${where}[${i}]`));
  return parts.every((p) => p.type === 'text') ? parts.map((p) => p.text).join('') : parts;
}

/** The text of a reasoning item's content or summary. */
function reasoningText(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((p: Json) => String(p?.text ?? '')).join('');
}

/** Input items -> chat messages; consecutive assistant items (reasoning, message, calls) make one assistant message. */
export function chatMessagesFromInput(input: unknown): Json[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) throw badRequest('input must be a string or a list of items.', 'input');
  const out: Json[] = [];
  let assistant: AssistantMessage | undefined;
  const openAssistant = (): AssistantMessage => {
    if (!assistant) {
      assistant = { role: 'assistant', content: null };
      out.push(assistant);
    }
    return assistant;
  };
  input.forEach((item: InputItem, i: number) => {
    const where = `input[${i}]`;
    const type = item?.type ?? (item?.role ? 'message' : undefined);
    switch (type) {
      case 'message': {
        if (item.role === 'assistant') {
          const a = openAssistant();
          const text = messageContent(item.content, `${where}.content`);
          const piece = typeof text === 'string' ? text : text.map((p) => p.text ?? '').join('');
          a.content = (a.content ?? '') + piece;
          return;
        }
        assistant = undefined;
        if (!OTHER_ROLES.includes(item.role)) throw badRequest(`${where}.role must be user, assistant, system or developer.`, `${where}.role`);
        out.push({ role: item.role, content: messageContent(item.content, `${where}.content`) });
        return;
      }
      case 'function_call': {
        if (typeof item.call_id !== 'string' || typeof item.name !== 'string') throw badRequest(`${where} needs call_id and name.`, where);
        const call: Json = {
          id: item.call_id,
          type: 'function',
          function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) },
        };
        if (item.extra_content) call.extra_content = item.extra_content;
        (openAssistant().tool_calls ??= []).push(call);
        return;
      }
      case 'reasoning': {
        const a = openAssistant();
        const text = reasoningText(item.content);
        const encrypted = typeof item.encrypted_content === 'string' && item.encrypted_content !== '' ? item.encrypted_content : undefined;
        let block: ThinkingBlock | undefined;
        if (text !== undefined) block = encrypted ? { type: 'thinking', thinking: text, signature: encrypted } : { type: 'thinking', thinking: text };
        else if (encrypted) block = { type: 'redacted_thinking', data: encrypted };
        if (!block) return;
        (a.thinking_blocks ??= []).push(block);
        if (block.type === 'thinking') a.reasoning_content = (a.reasoning_content ?? '') + block.thinking;
        return;
      }
      case 'function_call_output': {
        assistant = undefined;
        if (typeof item.call_id !== 'string') throw badRequest(`${where}.call_id is required.`, `${where}.call_id`);
        const output = typeof item.output === 'string' ? item.output : messageContent(item.output ?? '', `${where}.output`);
        out.push({ role: 'tool', tool_call_id: item.call_id, content: output });
        return;
      }
      default:
        throw badRequest(`${where}.type "${String(type)}" can be sent only to a provider with the Responses API.`, `${where}.type`);
    }
  });
  return out;
}

function tools(list: unknown): Json[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((tool: ResponseTool, i: number) => {
    if (tool?.type !== 'function') throw badRequest(`tools[${i}]: the ${String(tool?.type)} tool needs a provider with the Responses API.`, `tools[${i}].type`);
    const fn: Json = { name: tool.name, parameters: tool.parameters ?? { type: 'object', properties: {} } };
    if (typeof tool.description === 'string') fn.description = tool.description;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoice(choice: unknown): unknown {
  if (typeof choice === 'string') return choice;
  const c = choice as Json | undefined;
  if (c?.type === 'function' && typeof c.name === 'string') return { type: 'function', function: { name: c.name } };
  if (c?.type === 'allowed_tools') {
    const tools = (Array.isArray(c.tools) ? c.tools : []).map((t: Json) => (t?.type === 'function' ? { type: 'function', function: { name: t.name } } : t));
    return { type: 'allowed_tools', allowed_tools: { mode: c.mode, tools } };
  }
  return undefined;
}

function responseFormat(text: ResponsesCreateRequest['text']): Json | undefined {
  const format = text?.format;
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type === 'json_schema') {
    const schema: Json = { name: format.name ?? 'response', schema: format.schema ?? { type: 'object' } };
    if (typeof format.strict === 'boolean') schema.strict = format.strict;
    if (typeof format.description === 'string') schema.description = format.description;
    return { type: 'json_schema', json_schema: schema };
  }
  return undefined;
}

/** The whole chat request of a Responses request. */
export function chatFromResponses(body: ResponsesCreateRequest): Json {
  if (body.background === true) throw badRequest('background responses need a provider with the Responses API.', 'background');
  const messages: Json[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  messages.push(...chatMessagesFromInput(body.input));
  if (messages.length === 0) throw badRequest('input is required.', 'input');
  const chat: Json = { model: body.model, messages };
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  const list = tools(body.tools);
  if (list) {
    chat.tools = list;
    const choice = toolChoice(body.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') chat.parallel_tool_calls = body.parallel_tool_calls;
  }
  // allowed_tools as the tools it allows: a chat upstream need not know the shape
  Object.assign(chat, resolveAllowedTools(chat));
  const effort = body.reasoning?.effort;
  if (typeof effort === 'string') chat.reasoning_effort = effort;
  const format = responseFormat(body.text);
  if (format) chat.response_format = format;
  const user = typeof body.user === 'string' ? body.user : typeof body.safety_identifier === 'string' ? body.safety_identifier : undefined;
  if (user) chat.user = user;
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return chat;
}
