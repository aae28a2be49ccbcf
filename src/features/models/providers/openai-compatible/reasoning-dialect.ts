/**
 * Reasoning on OpenAI-compatible upstreams. Some return it as `reasoning_content` (DeepSeek,
 * xAI, Fireworks), others as `reasoning` (Groq, OpenRouter, Ollama, recent vLLM, Together);
 * answers and chunks of the latter get the contract's `reasoning_content` name (OpenRouter's
 * `reasoning_details` with signatures become `thinking_blocks`). Requests lose the gateway's
 * own `thinking_blocks` (no such upstream field), and `reasoning_content` unless the provider
 * takes its reasoning back (DeepSeek's thinking mode with tools).
 */
import type { ThinkingBlock } from '../../../../contract/stream-parts.js';

export interface ReasoningDialect {
  /** The upstream names reasoning `reasoning`: renamed `reasoning_content` on the way back. */
  renamed?: boolean;
  /** The upstream takes `reasoning_content` back on assistant messages. */
  takesReasoningBack?: boolean;
}

type Json = Record<string, unknown>;

const REASONING_KEY = Buffer.from('"reasoning"');

/** True when answer bytes hold a `reasoning` field to rename (checked before parsing anything). */
export function mentionsReasoning(raw: Buffer | string): boolean {
  return typeof raw === 'string' ? raw.includes('"reasoning"') : raw.includes(REASONING_KEY);
}

/** A chat request with the gateway-only fields of assistant messages removed; undefined when nothing had to go. */
export function upstreamChatBody(body: Json | undefined, dialect: ReasoningDialect): Json | undefined {
  const messages = body?.messages;
  if (!Array.isArray(messages)) return undefined;
  const drop = (m: Json) => m !== null && typeof m === 'object' && ('thinking_blocks' in m || (!dialect.takesReasoningBack && 'reasoning_content' in m));
  if (!messages.some(drop)) return undefined;
  return {
    ...body,
    messages: messages.map((m: Json) => {
      if (!drop(m)) return m;
      const { thinking_blocks: _blocks, ...rest } = m;
      if (!dialect.takesReasoningBack) delete rest.reasoning_content;
      return rest;
    }),
  };
}

/** OpenRouter's reasoning_details -> thinking blocks (text with a signature; encrypted as redacted). */
function blocksOfDetails(details: unknown): ThinkingBlock[] {
  if (!Array.isArray(details)) return [];
  const out: ThinkingBlock[] = [];
  for (const d of details) {
    if (d?.type === 'reasoning.text' && typeof d.text === 'string') {
      out.push(typeof d.signature === 'string' && d.signature !== '' ? { type: 'thinking', thinking: d.text, signature: d.signature } : { type: 'thinking', thinking: d.text });
    } else if (d?.type === 'reasoning.encrypted' && typeof d.data === 'string') {
      out.push({ type: 'redacted_thinking', data: d.data });
    }
  }
  return out;
}

/** Renames `reasoning` in one message or delta; returns whether it changed. */
function renameIn(holder: Json | undefined, whole: boolean): boolean {
  if (!holder || typeof holder !== 'object' || !('reasoning' in holder)) return false;
  const { reasoning } = holder;
  delete holder.reasoning;
  if (typeof reasoning === 'string' && holder.reasoning_content === undefined) holder.reasoning_content = reasoning;
  if (whole && holder.thinking_blocks === undefined) {
    const blocks = blocksOfDetails(holder.reasoning_details);
    if (blocks.length > 0) holder.thinking_blocks = blocks;
  }
  return true;
}

/** A whole chat.completion with `reasoning` renamed in each choice's message. */
export function renameReasoningInAnswer(body: Json): Json {
  for (const choice of Array.isArray(body?.choices) ? body.choices : []) renameIn(choice?.message, true);
  return body;
}

/** One chunk's JSON text with `reasoning` renamed in each delta (the text as it was when nothing changed). */
export function renameReasoningInChunk(data: string): string {
  if (!mentionsReasoning(data)) return data;
  let chunk: Json;
  try {
    chunk = JSON.parse(data);
  } catch {
    return data;
  }
  let changed = false;
  for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : []) changed = renameIn(choice?.delta, false) || changed;
  return changed ? JSON.stringify(chunk) : data;
}
