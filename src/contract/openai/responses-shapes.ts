import { randomFillSync } from 'node:crypto';
import type { FinishReason, ThinkingBlock, Usage } from '../stream-parts.js';
import { objectOf } from '../json.js';

/**
 * OpenAI Responses API shapes shared by translated JSON answers and the Responses stream
 * writer: the response object (echoing the request's settings), output items, usage.
 * Reasoning items carry a thinking block as `content: [reasoning_text]` plus its signature in
 * `encrypted_content`; a redacted block is a reasoning item with no content, its data in
 * `encrypted_content` (so it can be sent back as it came).
 */
type Json = Record<string, unknown>;

/** The id of a response's output item: from the response id and the item's position. */
export function outputItemId(prefix: 'msg' | 'rs' | 'fc', responseId: string, index: number): string {
  return `${prefix}_${responseId.replace(/^resp_/, '')}_${index}`;
}

/** Random bytes drawn for many ids at once (one system call per 128 ids, as node does for randomUUID); each byte is used once. */
const ID_BYTES = 24;
const pool = Buffer.alloc(ID_BYTES * 128);
let poolAt = pool.length;

/** A new response id of the gateway's own: `resp_` and 24 random bytes (never derived from an upstream id). */
export function newResponseId(): string {
  if (poolAt + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + ID_BYTES);
  poolAt += ID_BYTES;
  return `resp_${hex}`;
}

/**
 * The response id of a translated answer: one the gateway minted (`resp_...`, set on the
 * stream's meta part before any writer sees it) is kept; anything else gets a new random one.
 */
export function responseIdOf(id: string): string {
  return /^resp_[0-9a-f]{48}$/.test(id) ? id : newResponseId();
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' = 'completed'): Json {
  return { id, type: 'message', status, role: 'assistant', content: text === '' && status === 'in_progress' ? [] : [outputText(text)] };
}

export function outputText(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** A reasoning item of one thinking block (or of reasoning text that came without blocks). */
export function reasoningItem(id: string, block: ThinkingBlock | { type: 'thinking'; thinking: string; signature?: string }): Json {
  if (block.type === 'redacted_thinking') return { id, type: 'reasoning', summary: [], encrypted_content: block.data };
  const item: Json = { id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: block.thinking }] };
  if (block.signature) item.encrypted_content = block.signature;
  return item;
}

export function functionCallItem(id: string, callId: string, name: string, args: string, signature?: string, status: 'in_progress' | 'completed' = 'completed'): Json {
  const item: Json = { id, type: 'function_call', status, call_id: callId, name, arguments: args };
  // a reasoning signature riding on the call (Gemini) goes back with it, as on chat tool calls
  if (signature) item.extra_content = { google: { thought_signature: signature } };
  return item;
}

/** OpenAI chat usage -> Responses usage. */
export function responsesUsage(usage: Usage | undefined): Json | null {
  if (!usage) return null;
  return {
    input_tokens: Number(usage.prompt_tokens ?? 0),
    input_tokens_details: { cached_tokens: Number(usage.prompt_tokens_details?.cached_tokens ?? 0) },
    output_tokens: Number(usage.completion_tokens ?? 0),
    output_tokens_details: { reasoning_tokens: Number(usage.completion_tokens_details?.reasoning_tokens ?? 0) },
    total_tokens: Number(usage.total_tokens ?? Number(usage.prompt_tokens ?? 0) + Number(usage.completion_tokens ?? 0)),
  };
}

/** The response status and incomplete_details a finish reason gives. */
export function completionOf(finish: FinishReason | undefined): { status: 'completed' | 'incomplete'; incomplete: Json | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

export interface ResponseState {
  id: string;
  createdAt: number;
  model: string;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled' | 'queued';
  output: Json[];
  usage: Json | null;
  incomplete?: Json | null;
  error?: Json | null;
}

/** The whole response object: the answer's state plus the settings of the request it answers. */
export function responseObject(state: ResponseState, request: Json | undefined): Json {
  const r = request ?? {};
  const reasoning = objectOf(r.reasoning);
  return {
    id: state.id,
    object: 'response',
    created_at: state.createdAt,
    status: state.status,
    background: r.background === true,
    error: state.error ?? null,
    incomplete_details: state.incomplete ?? null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    max_tool_calls: r.max_tool_calls ?? null,
    model: state.model,
    output: state.output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: r.service_tier ?? 'default',
    store: r.store !== false,
    temperature: r.temperature ?? 1,
    text: r.text ?? { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    usage: state.usage,
    user: r.user ?? null,
    metadata: r.metadata ?? {},
  };
}
