/**
 * The tool loop on /v1/chat/completions: the chat request runs through the Responses loop
 * (./responses-loop.ts), its messages kept as they came and the loop's own turns translated
 * (responses/to-chat.ts, responses/from-chat.ts). The answer is a chat.completion whose
 * message carries the executed calls in the extension field `mcp_calls` (OpenAI's mcp_call
 * items); a stream shows each call as a chunk with `delta.mcp_calls` as it starts and ends.
 */
import { badRequest } from '../../contract/errors/gateway-error.js';
import type { ChatAnswer, ChatAnswerChoice } from '../../contract/openai/chat-answer.js';
import type { StreamPart } from '../../contract/stream-parts.js';
import { chatMessagesFromInput, responseFromChat } from '../models/index.js';
import type { LoopEvents } from './loop-events.js';
import { PartQueue } from './part-queue.js';
import type { GatewayMcpTool } from './mcp-tools.js';
import type { LoopUsage } from './responses-loop.js';

type Json = Record<string, unknown>;

/** Chat has no approval round trip: its mcp tools run without one (require_approval absent or "never"). */
export function chatEntries(entries: GatewayMcpTool[], tools: Json[]): GatewayMcpTool[] {
  return entries.map((entry) => {
    const asked = tools[entry.index]?.require_approval;
    if (asked !== undefined && asked !== null && asked !== 'never')
      throw badRequest(
        `tools[${entry.index}]: approvals (require_approval) need /v1/responses; on chat completions mcp tools run without one ("never").`,
        `tools[${entry.index}].require_approval`,
      );
    return { ...entry, approval: 'never' };
  });
}

/** The loop's view of a chat request: its messages as the conversation so far. */
export function loopBodyOfChat(chat: Json): Json {
  if (!Array.isArray(chat.messages)) throw badRequest('messages is required.', 'messages');
  return { model: chat.model, input: chat.messages, tools: chat.tools };
}

function withoutMcpCalls(message: Json): Json {
  const { mcp_calls: _calls, ...rest } = message;
  return rest;
}

/** One model call of the loop as a chat request: the caller's messages, then the loop's turns. */
export function chatRequestOf(chat: Json, loopRequest: Json): Json {
  const items: Json[] = Array.isArray(loopRequest.input) ? loopRequest.input : [];
  // an earlier answer sent back as it came: its mcp_calls are the gateway's, not the model's
  const own = items.filter((item) => item?.type === undefined).map((m) => (m.mcp_calls === undefined ? m : withoutMcpCalls(m)));
  const turns = items.filter((item) => item?.type !== undefined);
  const tools = (Array.isArray(loopRequest.tools) ? loopRequest.tools : []).map((tool: Json) =>
    tool.function ? tool : { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } },
  );
  const request: Json = { ...chat, messages: [...own, ...chatMessagesFromInput(turns)], stream: loopRequest.stream === true };
  // a streamed call reports its usage (the loop sums and bills it; the caller's own stream_options decide what it sees)
  if (request.stream) request.stream_options = { include_usage: true };
  else delete request.stream_options;
  delete request.max_tool_calls;
  if (tools.length) request.tools = tools;
  else delete request.tools;
  return request;
}

/** A chat answer as the loop reads it (a Responses answer). */
export function loopAnswerOfChat(chat: ChatAnswer, loopRequest: Json): Json {
  return responseFromChat(chat, loopRequest);
}

function textOf(item: Json): string {
  return (Array.isArray(item.content) ? item.content : []).map((part: Json) => (part?.type === 'output_text' ? String(part.text ?? '') : '')).join('');
}

/** The loop's answer as a chat.completion: the last model turn's message with `mcp_calls`, usage of every model call. */
export function chatCompletionOf(response: Json, lastChat: ChatAnswer | undefined): Json {
  const output: Json[] = Array.isArray(response.output) ? response.output : [];
  const content = output
    .filter((i) => i.type === 'message')
    .map(textOf)
    .join('');
  const toolCalls = output
    .filter((i) => i.type === 'function_call')
    .map((i) => ({ id: String(i.call_id), type: 'function', function: { name: String(i.name), arguments: String(i.arguments ?? '') } }));
  const mcpCalls = output.filter((i) => i.type === 'mcp_call');
  const reasoning = output
    .filter((i) => i.type === 'reasoning')
    .map((i) => (Array.isArray(i.content) ? i.content.map((p: Json) => String(p?.text ?? '')).join('') : ''))
    .join('');
  const message: Json = { role: 'assistant', content: content === '' ? null : content };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length) message.tool_calls = toolCalls;
  message.mcp_calls = mcpCalls;
  const incomplete = response.status === 'incomplete';
  const finish = toolCalls.length ? 'tool_calls' : incomplete ? 'length' : (lastChat?.choices?.[0]?.finish_reason ?? 'stop');
  const used = response.usage as LoopUsage | null | undefined;
  const usage = used
    ? {
        prompt_tokens: used.input_tokens ?? 0,
        completion_tokens: used.output_tokens ?? 0,
        total_tokens: used.total_tokens ?? 0,
        prompt_tokens_details: { cached_tokens: used.input_tokens_details?.cached_tokens ?? 0 },
        completion_tokens_details: { reasoning_tokens: used.output_tokens_details?.reasoning_tokens ?? 0 },
      }
    : undefined;
  const completion: Json = {
    id: String(lastChat?.id ?? `chatcmpl-${String(response.id).replace(/^resp_/, '')}`),
    object: 'chat.completion',
    created: typeof lastChat?.created === 'number' ? lastChat.created : Math.floor(Date.now() / 1000),
    model: String(lastChat?.model ?? response.model ?? ''),
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
  };
  if (usage) completion.usage = usage;
  if (incomplete) completion.incomplete_details = response.incomplete_details;
  return completion;
}

/** The loop's moments as chat chunks: each call (delta.mcp_calls) as it starts and ends, the model's text, tool calls for the caller. */
export class ChatLoopEvents implements LoopEvents {
  private readonly queue = new PartQueue();
  private readonly id = `chatcmpl-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private toolIndex = 0;

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
  ) {
    this.delta({ role: 'assistant', content: '' });
  }

  private chunk(body: Json): void {
    this.queue.push({ type: 'chunk', data: JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, ...body }) });
  }

  private delta(delta: Json, finish: string | null = null): void {
    this.chunk({ choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  }

  item(_index: number, item: Json): void {
    if (item.type === 'message') {
      const text = textOf(item);
      if (text !== '') this.delta({ content: text });
    } else if (item.type === 'reasoning') {
      const text = Array.isArray(item.content) ? item.content.map((p: Json) => String(p?.text ?? '')).join('') : '';
      if (text !== '') this.delta({ reasoning_content: text });
    } else if (item.type === 'function_call') {
      this.delta({
        tool_calls: [{ index: this.toolIndex++, id: String(item.call_id), type: 'function', function: { name: String(item.name), arguments: String(item.arguments ?? '') } }],
      });
    }
  }

  listStarted(): void {}
  listEnded(): void {}

  streamStarted(): void {}

  streamDelta(_index: number, item: Json, text: string): void {
    this.delta(item.type === 'message' ? { content: text } : { reasoning_content: text });
  }

  streamEnded(): void {}

  callStarted(_index: number, item: Json): void {
    this.delta({ mcp_calls: [{ ...item }] });
  }

  callEnded(_index: number, item: Json): void {
    this.delta({ mcp_calls: [{ ...item }] });
  }

  /** The finish chunk (and the usage chunk, when asked for), then the end. */
  end(completion: ChatAnswer): void {
    const choice: ChatAnswerChoice = completion.choices?.[0] ?? {};
    this.delta({}, String(choice.finish_reason ?? 'stop'));
    if (this.includeUsage && completion.usage) this.chunk({ choices: [], usage: completion.usage });
    this.finish();
  }

  fail(error: Json): void {
    this.queue.push({
      type: 'chunk',
      data: JSON.stringify({ error: { message: error.message ?? 'The tool loop failed.', type: 'api_error', code: error.code ?? null, param: error.param ?? null } }),
    });
    this.finish();
  }

  private finish(): void {
    this.queue.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return this.queue[Symbol.asyncIterator]();
  }
}
