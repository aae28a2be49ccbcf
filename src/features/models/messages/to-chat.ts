/**
 * An Anthropic Messages request -> the OpenAI chat request every translated provider takes.
 * System blocks become a system message; tool_result blocks become tool messages (before the
 * rest of their user turn); assistant thinking / redacted_thinking blocks become
 * `thinking_blocks` (and their text `reasoning_content`), signatures intact, and an empty
 * signed thinking block right before a tool_use also rides on that tool call (a Gemini thought
 * signature that came with the call); tool_use ids are kept as the tool call ids, so tool
 * results find their calls. `thinking` becomes reasoning_effort; cache_control stays on its part.
 */
import { badRequest } from '../../../contract/errors/gateway-error.js';
import type { AnthropicContentBlock, AnthropicSystemBlock, AnthropicTool, MessagesCreateRequest } from '../../../generated/requests/messages-create.js';
import { effortOfBudget } from '../providers/shared/reasoning.js';

type Json = Record<string, unknown>;

/** Where an image or document block's bytes are (each field checked where read). */
interface BlockSource {
  type?: unknown;
  media_type?: unknown;
  data?: unknown;
  url?: unknown;
}

/** A content block with the fields the translation reads: the schema holds a block to its `type`, each field is checked where read. */
interface Block extends AnthropicContentBlock {
  text?: unknown;
  source?: BlockSource;
  title?: unknown;
  cache_control?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

/** The chat request of a translated one (what a provider's chat translation takes as call.body). */
export type ChatRequest = Json & { messages: Json[] };

export interface MessagesTranslationOptions {
  /** The provider takes top_k (Gemini, Bedrock); others refuse the field. */
  topK?: boolean;
}

function withCache(part: Json, block: Json): Json {
  if (block.cache_control && typeof block.cache_control === 'object') part.cache_control = block.cache_control;
  return part;
}

/** An image or document block -> an OpenAI content part. */
function mediaPart(block: Block, where: string): Json {
  const source: BlockSource = block.source ?? {};
  if (block.type === 'image') {
    if (source.type === 'base64') return withCache({ type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } }, block);
    if (source.type === 'url') return withCache({ type: 'image_url', image_url: { url: source.url } }, block);
    throw badRequest(`${where}.source.type must be base64 or url.`, `${where}.source.type`);
  }
  if (source.type === 'base64') {
    return withCache({ type: 'file', file: { file_data: `data:${source.media_type};base64,${source.data}`, ...(block.title ? { filename: block.title } : {}) } }, block);
  }
  if (source.type === 'text') return withCache({ type: 'text', text: String(source.data ?? '') }, block);
  throw badRequest(`${where}.source.type must be base64 or text for documents here.`, `${where}.source.type`);
}

/** The content parts of user blocks (text, image, document). */
function userPart(block: Block, where: string): Json {
  switch (block?.type) {
    case 'text':
      return withCache({ type: 'text', text: String(block.text ?? '') }, block);
    case 'image':
    case 'document':
      return mediaPart(block, where);
    default:
      throw badRequest(`${where}.type "${String(block?.type)}" can be sent only to anthropic.`, `${where}.type`);
  }
}

/** A tool_result's content -> a tool message's content. */
function toolResultContent(block: Block, where: string): string | Json[] {
  const content = block.content;
  const prefix = block.is_error === true ? 'Error: ' : '';
  if (content === undefined || content === null) return prefix;
  if (typeof content === 'string') return prefix + content;
  if (!Array.isArray(content)) throw badRequest(`${where}.content must be a string or a list of blocks.`, `${where}.content`);
  const parts = content.map((b: Block, i: number) => userPart(b, `${where}.content[${i}]`));
  if (parts.every((p) => p.type === 'text' && !p.cache_control)) return prefix + parts.map((p) => p.text).join('');
  return prefix ? [{ type: 'text', text: prefix }, ...parts] : parts;
}

function userMessages(message: { content: unknown }, param: string): Json[] {
  const content = message.content;
  if (typeof content === 'string') return [{ role: 'user', content }];
  const out: Json[] = [];
  const parts: Json[] = [];
  (content as Block[]).forEach((block, i) => {
    const where = `${param}.content[${i}]`;
    if (block?.type === 'tool_result') {
      if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') throw badRequest(`${where}.tool_use_id is required.`, `${where}.tool_use_id`);
      const tool: Json = { role: 'tool', tool_call_id: block.tool_use_id, content: toolResultContent(block, where) };
      if (block.cache_control) tool.cache_control = block.cache_control;
      out.push(tool);
    } else parts.push(userPart(block, where));
  });
  // one plain text block is the same as a string
  if (parts.length === 1 && parts[0]!.type === 'text' && !parts[0]!.cache_control) out.push({ role: 'user', content: parts[0]!.text });
  else if (parts.length > 0) out.push({ role: 'user', content: parts });
  return out;
}

function assistantMessage(message: { content: unknown }, param: string): Json {
  const content = message.content;
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: Json[] = [];
  const calls: Json[] = [];
  const blocks: Json[] = [];
  let reasoning = '';
  (content as Block[]).forEach((block, i) => {
    const where = `${param}.content[${i}]`;
    switch (block?.type) {
      case 'text':
        texts.push(withCache({ type: 'text', text: String(block.text ?? '') }, block));
        return;
      case 'thinking': {
        const thinking = String(block.thinking ?? '');
        reasoning += thinking;
        blocks.push(typeof block.signature === 'string' ? { type: 'thinking', thinking, signature: block.signature } : { type: 'thinking', thinking });
        return;
      }
      case 'redacted_thinking':
        blocks.push({ type: 'redacted_thinking', data: String(block.data ?? '') });
        return;
      case 'tool_use': {
        if (typeof block.id !== 'string' || typeof block.name !== 'string') throw badRequest(`${where} needs an id and a name.`, where);
        const call: Json = { id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } };
        const before = (content as Block[])[i - 1];
        if (before?.type === 'thinking' && before.thinking === '' && typeof before.signature === 'string' && before.signature !== '') {
          call.extra_content = { google: { thought_signature: before.signature } };
        }
        calls.push(call);
        return;
      }
      default:
        throw badRequest(`${where}.type "${String(block?.type)}" can be sent only to anthropic.`, `${where}.type`);
    }
  });
  const out: Json = { role: 'assistant', content: texts.length === 0 ? null : texts.every((t) => !t.cache_control) ? texts.map((t) => t.text).join('') : texts };
  if (blocks.length > 0) {
    out.thinking_blocks = blocks;
    out.reasoning_content = reasoning;
  }
  if (calls.length > 0) out.tool_calls = calls;
  return out;
}

function systemMessage(system: unknown): Json | undefined {
  if (system === undefined || system === null || system === '') return undefined;
  if (typeof system === 'string') return { role: 'system', content: system };
  const blocks = system as AnthropicSystemBlock[];
  if (blocks.every((b) => !b.cache_control)) return { role: 'system', content: blocks.map((b) => String(b.text ?? '')).join('\n\n') };
  return { role: 'system', content: blocks.map((b) => withCache({ type: 'text', text: String(b.text ?? '') }, b)) };
}

function tools(list: unknown): Json[] | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((tool: AnthropicTool, i: number) => {
    if (tool.type !== undefined && tool.type !== 'custom') throw badRequest(`tools[${i}]: the server tool ${String(tool.type)} is served only by anthropic.`, `tools[${i}].type`);
    const fn: Json = { name: tool.name, parameters: tool.input_schema ?? { type: 'object', properties: {} } };
    if (typeof tool.description === 'string') fn.description = tool.description;
    return withCache({ type: 'function', function: fn }, tool);
  });
}

function toolChoice(choice: MessagesCreateRequest['tool_choice']): unknown {
  switch (choice?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      return undefined;
  }
}

/** The chat messages of a Messages request (system first). */
export function chatMessages(body: MessagesCreateRequest): Json[] {
  const messages: Json[] = [];
  const system = systemMessage(body.system);
  if (system) messages.push(system);
  body.messages.forEach((m, i) => {
    const param = `messages[${i}]`;
    if (m.role === 'user') messages.push(...userMessages(m, param));
    else messages.push(assistantMessage(m, param));
  });
  return messages;
}

/** The whole chat request of a Messages request. */
export function chatFromMessages(body: MessagesCreateRequest, options: MessagesTranslationOptions = {}): ChatRequest {
  const chat: ChatRequest = { model: body.model, messages: chatMessages(body) };
  if (typeof body.max_tokens === 'number') chat.max_tokens = body.max_tokens;
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  if (options.topK && typeof body.top_k === 'number') chat.top_k = body.top_k;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  const list = tools(body.tools);
  if (list) {
    chat.tools = list;
    const choice = toolChoice(body.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (body.tool_choice?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  }
  if (typeof body.metadata?.user_id === 'string') chat.user = body.metadata.user_id;
  const thinking = body.thinking;
  if (thinking?.type === 'enabled') chat.reasoning_effort = effortOfBudget(Number(thinking.budget_tokens ?? 0));
  else if (thinking?.type === 'adaptive') chat.reasoning_effort = 'medium';
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  return chat;
}

/** A rough count of a request's input tokens (about four characters a token), for message_start before the provider tells. */
export function estimateInputTokens(chat: Json): number {
  let chars = 0;
  for (const m of (chat.messages ?? []) as Json[]) chars += typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length;
  if (chat.tools) chars += JSON.stringify(chat.tools).length;
  return Math.max(1, Math.ceil(chars / 4));
}
