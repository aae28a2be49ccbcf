/**
 * The tool loop on /v1/messages (Anthropic's Messages API): `mcp_servers` entries whose `url`
 * is this gateway's /mcp/<server> run through the Responses loop (./responses-loop.ts); the
 * caller's messages stay as they came, the loop's turns become Anthropic messages (thinking,
 * text and tool_use blocks; tool_result blocks), each model answer a Responses answer for the
 * loop. The answer is an Anthropic message with mcp_tool_use / mcp_tool_result blocks in the
 * order they happened; a stream shows each block as it completes.
 */
import { randomBytes } from 'node:crypto';
import { badRequest } from '../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../contract/stream-parts.js';
import type { LoopEvents } from './loop-events.js';
import { PartQueue } from './part-queue.js';
import type { GatewayMcpTool } from './mcp-tools.js';
import type { LoopUsage } from './responses-loop.js';

type Json = Record<string, unknown>;

/** An mcp_servers entry's tool_configuration (each field checked where read). */
interface ToolConfiguration {
  enabled?: unknown;
  allowed_tools?: unknown;
}

/** An Anthropic answer's usage (each field checked where read). */
interface MessageUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
}

/** An Anthropic message of the loop's turns. */
type Turn = { role: 'assistant' | 'user'; content: Json[] };

/** The mcp_servers of a Messages request: those the gateway runs (server from the /mcp/<server> URL), and the outside ones. */
export function mcpServersOf(servers: unknown, isServer: (name: string) => boolean, base: string): { gateway: GatewayMcpTool[]; outside: string[]; outsideServers: Json[] } {
  const out = { gateway: [] as GatewayMcpTool[], outside: [] as string[], outsideServers: [] as Json[] };
  if (servers === undefined || servers === null) return out;
  if (!Array.isArray(servers)) throw badRequest('mcp_servers must be a list.', 'mcp_servers');
  servers.forEach((server: Json, i) => {
    const at = `mcp_servers[${i}]`;
    if (typeof server?.url !== 'string' || server.url === '') throw badRequest(`${at}.url is required.`, `${at}.url`);
    if (typeof server.name !== 'string' || server.name === '') throw badRequest(`${at}.name is required.`, `${at}.name`);
    let url: URL;
    try {
      url = new URL(server.url, base);
    } catch {
      throw badRequest(`${at}.url is not a URL.`, `${at}.url`);
    }
    const match = /\/mcp\/([^/]+)\/?$/.exec(url.pathname);
    if (url.host !== new URL(base).host || !match) {
      out.outside.push(server.name);
      out.outsideServers.push(server);
      return;
    }
    const label = decodeURIComponent(match[1]!);
    if (!isServer(label)) throw badRequest(`${at}.url: no tool server named "${label}" behind this gateway.`, `${at}.url`);
    const config = server.tool_configuration as ToolConfiguration | null | undefined;
    if (config?.enabled === false) return;
    const entry: GatewayMcpTool = { index: -1, label, approval: 'never', name: server.name };
    if (Array.isArray(config?.allowed_tools)) entry.allowed = config.allowed_tools.map(String);
    out.gateway.push(entry);
  });
  return out;
}

/** The loop's view of a Messages request: its messages (and system) as the conversation so far, its own tools as they are. */
export function loopBodyOfMessages(body: Json): Json {
  if (!Array.isArray(body.messages)) throw badRequest('messages is required.', 'messages');
  return { model: body.model, input: body.messages, tools: Array.isArray(body.tools) ? body.tools : [] };
}

function parseInput(text: string): Json {
  try {
    const value = JSON.parse(text === '' ? '{}' : text);
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/** Loop turns (Responses items) -> Anthropic messages: the assistant's blocks of a turn in one message, the tool results in one user message. */
function messagesOfTurns(items: Json[]): Json[] {
  const out: Json[] = [];
  let current: Turn | undefined;
  const open = (role: 'assistant' | 'user'): Json[] => {
    if (!current || current.role !== role) {
      current = { role, content: [] };
      out.push(current);
    }
    return current.content;
  };
  for (const item of items) {
    switch (item.type) {
      case 'reasoning': {
        const text = Array.isArray(item.content) ? item.content.map((p: Json) => String(p?.text ?? '')).join('') : undefined;
        if (text !== undefined) open('assistant').push({ type: 'thinking', thinking: text, ...(item.encrypted_content ? { signature: item.encrypted_content } : {}) });
        else if (item.encrypted_content) open('assistant').push({ type: 'redacted_thinking', data: item.encrypted_content });
        break;
      }
      case 'message': {
        const text = (Array.isArray(item.content) ? item.content : []).map((p: Json) => String(p?.text ?? '')).join('');
        if (text !== '') open('assistant').push({ type: 'text', text });
        break;
      }
      case 'function_call':
        open('assistant').push({ type: 'tool_use', id: String(item.call_id), name: String(item.name), input: parseInput(String(item.arguments ?? '')) });
        break;
      case 'function_call_output':
        open('user').push({
          type: 'tool_result',
          tool_use_id: String(item.call_id),
          content: String(item.output ?? ''),
          ...(String(item.output ?? '').startsWith('Error: ') ? { is_error: true } : {}),
        });
        break;
    }
  }
  return out;
}

/** One model call of the loop as a Messages request: the caller's messages, then the loop's turns; the gateway's tools as Anthropic tools. */
export function messagesRequestOf(body: Json, loopRequest: Json, outsideServers: Json[]): Json {
  const items: Json[] = Array.isArray(loopRequest.input) ? loopRequest.input : [];
  const own = items.filter((item) => item?.type === undefined);
  const turns = items.filter((item) => item?.type !== undefined);
  const tools = (Array.isArray(loopRequest.tools) ? loopRequest.tools : []).map((tool: Json) =>
    tool.type === 'function' && tool.parameters ? { name: tool.name, description: tool.description, input_schema: tool.parameters } : tool,
  );
  const request: Json = { ...body, messages: [...own, ...messagesOfTurns(turns)], stream: loopRequest.stream === true };
  if (outsideServers.length) request.mcp_servers = outsideServers;
  else delete request.mcp_servers;
  if (tools.length) request.tools = tools;
  else delete request.tools;
  return request;
}

function itemId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** An Anthropic answer as the loop reads it (a Responses answer: reasoning, message and function_call items). */
export function loopAnswerOfMessage(message: Json): Json {
  const output: Json[] = [];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (block?.type === 'thinking') {
      output.push({
        id: itemId('rs'),
        type: 'reasoning',
        summary: [],
        content: [{ type: 'reasoning_text', text: String(block.thinking ?? '') }],
        ...(block.signature ? { encrypted_content: block.signature } : {}),
      });
    } else if (block?.type === 'redacted_thinking') output.push({ id: itemId('rs'), type: 'reasoning', summary: [], encrypted_content: block.data });
    else if (block?.type === 'text')
      output.push({
        id: itemId('msg'),
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: String(block.text ?? ''), annotations: [] }],
      });
    else if (block?.type === 'tool_use')
      output.push({
        id: itemId('fc'),
        type: 'function_call',
        status: 'completed',
        call_id: String(block.id),
        name: String(block.name),
        arguments: JSON.stringify(block.input ?? {}),
      });
  }
  const usage = (message.usage ?? {}) as MessageUsage;
  const input = (Number(usage.input_tokens) || 0) + (Number(usage.cache_read_input_tokens) || 0) + (Number(usage.cache_creation_input_tokens) || 0);
  const outputTokens = Number(usage.output_tokens) || 0;
  return {
    id: String(message.id ?? ''),
    model: message.model,
    status: message.stop_reason === 'max_tokens' ? 'incomplete' : 'completed',
    incomplete_details: message.stop_reason === 'max_tokens' ? { reason: 'max_output_tokens' } : null,
    output,
    usage: {
      input_tokens: input,
      output_tokens: outputTokens,
      total_tokens: input + outputTokens,
      input_tokens_details: { cached_tokens: Number(usage.cache_read_input_tokens) || 0 },
    },
  };
}

/** The Anthropic blocks of one loop item (an mcp_call is its mcp_tool_use and its mcp_tool_result). */
export function blocksOf(item: Json, serverNames: Map<string, string>): Json[] {
  switch (item.type) {
    case 'message': {
      const text = (Array.isArray(item.content) ? item.content : []).map((p: Json) => String(p?.text ?? '')).join('');
      return text === '' ? [] : [{ type: 'text', text }];
    }
    case 'reasoning': {
      const text = Array.isArray(item.content) ? item.content.map((p: Json) => String(p?.text ?? '')).join('') : undefined;
      if (text !== undefined) return [{ type: 'thinking', thinking: text, signature: item.encrypted_content ?? '' }];
      return item.encrypted_content ? [{ type: 'redacted_thinking', data: item.encrypted_content }] : [];
    }
    case 'function_call':
      return [{ type: 'tool_use', id: String(item.call_id), name: String(item.name), input: parseInput(String(item.arguments ?? '')) }];
    case 'mcp_call': {
      const id = `mcptoolu_${String(item.id).replace(/^mcp_/, '')}`;
      const failed = item.status === 'failed';
      return [
        {
          type: 'mcp_tool_use',
          id,
          name: String(item.name),
          server_name: serverNames.get(String(item.server_label)) ?? String(item.server_label),
          input: parseInput(String(item.arguments ?? '')),
        },
        { type: 'mcp_tool_result', tool_use_id: id, is_error: failed, content: [{ type: 'text', text: String((failed ? item.error : item.output) ?? '') }] },
      ];
    }
    default:
      return [];
  }
}

/** The loop's answer as an Anthropic message: every block in the order it happened; stop_reason pause_turn when a limit ended the loop. */
export function messageOf(response: Json, lastAnswer: Json | undefined, model: string, serverNames: Map<string, string>): Json {
  const content = (Array.isArray(response.output) ? response.output : []).flatMap((item: Json) => blocksOf(item, serverNames));
  const clientCalls = content.some((b: Json) => b.type === 'tool_use');
  const stop =
    response.status === 'incomplete'
      ? (response.incomplete_details as { reason?: unknown } | null | undefined)?.reason === 'max_output_tokens'
        ? 'max_tokens'
        : 'pause_turn'
      : clientCalls
        ? 'tool_use'
        : (lastAnswer?.stop_reason ?? 'end_turn');
  return {
    id: String(lastAnswer?.id ?? itemId('msg')),
    type: 'message',
    role: 'assistant',
    model: String(lastAnswer?.model ?? model),
    content,
    stop_reason: stop,
    stop_sequence: lastAnswer?.stop_reason === 'stop_sequence' ? (lastAnswer.stop_sequence ?? null) : null,
    usage: {
      input_tokens: Number((response.usage as LoopUsage | null | undefined)?.input_tokens ?? 0),
      output_tokens: Number((response.usage as LoopUsage | null | undefined)?.output_tokens ?? 0),
    },
  };
}

/** The loop's blocks as Anthropic stream events, each block whole as it completes. */
export class MessagesLoopEvents implements LoopEvents {
  private readonly queue = new PartQueue();
  private index = 0;

  constructor(
    model: string,
    private readonly serverNames: Map<string, string>,
  ) {
    this.push('message_start', {
      message: { id: itemId('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
    });
  }

  private push(type: string, data: Json): void {
    this.queue.push({ type: 'event', event: type, data: JSON.stringify({ type, ...data }) });
  }

  private block(block: Json): void {
    const index = this.index++;
    switch (block.type) {
      case 'text':
        this.push('content_block_start', { index, content_block: { type: 'text', text: '' } });
        this.push('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
        break;
      case 'thinking':
        this.push('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        this.push('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } });
        if (block.signature) this.push('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
        break;
      case 'tool_use':
      case 'mcp_tool_use':
        this.push('content_block_start', { index, content_block: { ...block, input: {} } });
        this.push('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } });
        break;
      default:
        this.push('content_block_start', { index, content_block: block });
    }
    this.push('content_block_stop', { index });
  }

  item(_index: number, item: Json): void {
    for (const block of blocksOf(item, this.serverNames)) this.block(block);
  }

  listStarted(): void {}
  listEnded(): void {}
  callStarted(): void {}

  /** Content block index of each streamed item, by output index. */
  private readonly streaming = new Map<number, number>();

  streamStarted(index: number, item: Json): void {
    const block = this.index++;
    this.streaming.set(index, block);
    this.push('content_block_start', { index: block, content_block: item.type === 'message' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' } });
  }

  streamDelta(index: number, item: Json, text: string): void {
    const block = this.streaming.get(index);
    if (block === undefined) return;
    this.push('content_block_delta', { index: block, delta: item.type === 'message' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text } });
  }

  streamEnded(index: number, item: Json): void {
    const block = this.streaming.get(index);
    if (block === undefined) return;
    this.streaming.delete(index);
    if (item.type === 'reasoning' && item.encrypted_content)
      this.push('content_block_delta', { index: block, delta: { type: 'signature_delta', signature: item.encrypted_content } });
    this.push('content_block_stop', { index: block });
  }

  callEnded(_index: number, item: Json): void {
    for (const block of blocksOf(item, this.serverNames)) this.block(block);
  }

  end(message: Json): void {
    this.push('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null }, usage: message.usage });
    this.push('message_stop', {});
    this.finish();
  }

  fail(error: Json): void {
    this.push('error', { error: { type: 'api_error', message: error.message ?? 'The tool loop failed.' } });
    this.finish();
  }

  private finish(): void {
    this.queue.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return this.queue[Symbol.asyncIterator]();
  }
}
