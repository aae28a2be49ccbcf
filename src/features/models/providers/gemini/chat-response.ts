/**
 * A Gemini GenerateContentResponse -> the OpenAI chat.completion shape, and the pieces the
 * stream mapper shares with it (finish reasons, usage, tool-call ids, answer ids), so a
 * streamed answer reassembles to exactly the non-streamed one.
 */
import { randomUUID } from 'node:crypto';
import type { FinishReason, ThinkingBlock, Usage } from '../../../../contract/stream-parts.js';
import { toolCallOf } from '../shared/openai-answer.js';
import { candidateEvents } from './thoughts.js';
import { isJsonObject, objectOf, objectsOf } from '../../../../contract/json.js';

type Json = Record<string, unknown>;

/** Gemini finishReason -> OpenAI finish_reason; anything not listed is "stop". */
export const GEMINI_FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

export function finishReasonOf(reason: unknown, hasToolCalls: boolean): FinishReason {
  const mapped = typeof reason === 'string' ? (GEMINI_FINISH_REASONS[reason] ?? 'stop') : 'stop';
  return mapped === 'stop' && hasToolCalls ? 'tool_calls' : mapped;
}

/** The id of the n-th tool call (0-based) of one choice: stable across stream and non-stream. */
export function toolCallId(n: number): string {
  return `call_${n}`;
}

/** usageMetadata -> OpenAI usage (thinking tokens count as completion tokens, as reasoning tokens do). */
export function usageOf(meta: Json | undefined): Usage {
  const prompt = num(meta?.promptTokenCount);
  const completion = num(meta?.candidatesTokenCount) + num(meta?.thoughtsTokenCount);
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: meta?.totalTokenCount !== undefined ? num(meta.totalTokenCount) : prompt + completion,
  };
  if (meta?.cachedContentTokenCount) usage.prompt_tokens_details = { cached_tokens: num(meta.cachedContentTokenCount) };
  if (meta?.thoughtsTokenCount) usage.completion_tokens_details = { reasoning_tokens: num(meta.thoughtsTokenCount) };
  return usage;
}

/** The text, tool calls and reasoning of one whole candidate. */
export function piecesOf(candidate: Json | undefined) {
  const texts: string[] = [];
  const calls: { name: string; args: string; id?: string; signature?: string }[] = [];
  const blocks: ThinkingBlock[] = [];
  let reasoning = '';
  for (const event of candidateEvents(candidate)) {
    if (event.kind === 'text') texts.push(event.text);
    else if (event.kind === 'reasoning') reasoning += event.text;
    else if (event.kind === 'block') blocks.push(event.block);
    else calls.push(event);
  }
  return { texts, calls, blocks, reasoning };
}

/** id, model and created of an answer (the same for every chunk of a stream). */
export function answerMeta(body: Json, requestedModel: unknown): { id: string; model: string; created: number } {
  const created = typeof body.createTime === 'string' ? Math.floor(Date.parse(body.createTime) / 1000) : NaN;
  return {
    id: `chatcmpl-${typeof body.responseId === 'string' && body.responseId ? body.responseId : randomUUID().replace(/-/g, '')}`,
    model: typeof body.modelVersion === 'string' && body.modelVersion ? body.modelVersion : String(requestedModel ?? ''),
    created: Number.isFinite(created) ? created : Math.floor(Date.now() / 1000),
  };
}

/** A prompt Gemini refused outright: no candidates, promptFeedback.blockReason set. */
export function promptBlocked(body: Json): boolean {
  return (!Array.isArray(body.candidates) || body.candidates.length === 0) && Boolean(objectOf(body.promptFeedback).blockReason);
}

/** The whole answer in OpenAI's chat.completion shape. */
export function toChatCompletion(body: Json, requestedModel: unknown): Json {
  const meta = answerMeta(body, requestedModel);
  const choices: Json[] = [];
  if (promptBlocked(body)) {
    choices.push({ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' });
  } else {
    const candidates = objectsOf(body.candidates);
    candidates.forEach((candidate, position) => {
      const { texts, calls, blocks, reasoning } = piecesOf(candidate);
      const message: Json = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null, refusal: null };
      if (reasoning !== '' || blocks.length > 0) message.reasoning_content = reasoning;
      if (blocks.length > 0) message.thinking_blocks = blocks;
      if (calls.length > 0) {
        message.tool_calls = calls.map((call, n) => toolCallOf({ id: call.id ?? toolCallId(n), name: call.name, arguments: call.args, signature: call.signature }));
      }
      choices.push({
        index: typeof candidate.index === 'number' ? candidate.index : position,
        message,
        logprobs: null,
        finish_reason: finishReasonOf(candidate.finishReason, calls.length > 0),
      });
    });
    choices.sort((a, b) => Number(a.index) - Number(b.index));
  }
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices,
    usage: usageOf(isJsonObject(body.usageMetadata) ? body.usageMetadata : undefined),
  };
}

function num(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}
