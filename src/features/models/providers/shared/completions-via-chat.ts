import { semanticError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { OperationAdapter, ProviderCall } from '../provider.js';
import { transformMapper } from './stream-mapper.js';
import { arrayOf, objectOf } from '../../../../contract/json.js';

/**
 * Legacy text completions for providers that only have chat: the prompt becomes one user
 * message, the chat answer becomes a `text_completion`, and streamed chat parts become
 * text_completion chunks (the edge writes them in the 'text' format). Generic: it wraps any
 * provider's chat adapter.
 */

/** Completion fields with no chat equivalent; they are not sent upstream. */
const COMPLETION_ONLY = new Set(['prompt', 'suffix', 'echo', 'best_of', 'logprobs']);

/** The one text prompt a chat turn takes; several prompts or token ids (well-formed, but impossible through chat) are a 422. */
function promptText(body: Record<string, unknown>, provider: string): string {
  const prompt = body.prompt;
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  if (Array.isArray(prompt) && prompt.every((p) => typeof p === 'string')) {
    throw semanticError(`${provider} serves completions through its chat API, one prompt per request: send a single prompt.`, 'prompt');
  }
  throw semanticError(`${provider} serves completions through its chat API: prompt must be text, not token ids.`, 'prompt');
}

/** The chat request a completion request becomes. */
export function chatBodyFromCompletion(body: Record<string, unknown>, provider: string): Record<string, unknown> {
  const chat: Record<string, unknown> = {};
  for (const key of Object.keys(body)) if (!COMPLETION_ONLY.has(key)) chat[key] = body[key];
  chat.messages = [{ role: 'user', content: promptText(body, provider) }];
  return chat;
}

function chatCall(call: ProviderCall, provider: string): ProviderCall {
  return { ...call, operation: 'chat.completions', body: chatBodyFromCompletion(call.body ?? {}, provider), rawBody: undefined };
}

/** A chat.completion object turned into a text_completion object. */
export function textCompletionFromChat(answer: unknown, completionBody: Record<string, unknown>, provider: string) {
  const chat = objectOf(answer);
  const choice = objectOf(arrayOf(chat.choices)[0]);
  const echo = completionBody.echo === true ? promptText(completionBody, provider) : '';
  return {
    id: chat.id,
    object: 'text_completion',
    created: chat.created,
    model: chat.model,
    choices: [{ text: echo + String(objectOf(choice.message).content ?? ''), index: 0, logprobs: null, finish_reason: choice.finish_reason ?? 'stop' }],
    usage: chat.usage,
  };
}

export function completionsViaChat(chat: OperationAdapter, provider: string): OperationAdapter {
  const chatResponse = chat.response;
  if (!chatResponse) throw new Error(`${provider}: completions via chat need a chat adapter that maps its answer`);
  const adapter: OperationAdapter = {
    request: (call, instance) => chat.request(chatCall(call, provider), instance),
    response: (body, call) => textCompletionFromChat(chatResponse(body, chatCall(call, provider)), call.body ?? {}, provider),
  };
  const stream = chat.stream;
  if (stream) {
    adapter.stream = {
      framing: stream.framing,
      createMapper(call) {
        const inner = stream.createMapper(chatCall(call, provider));
        const echo = call.body?.echo === true ? promptText(call.body, provider) : '';
        return transformMapper(inner, (parts) => {
          const kept: StreamPart[] = [];
          for (const part of parts) {
            // tool calls and reasoning have no place in a text completion
            if (part.type === 'tool-call-start' || part.type === 'tool-call-args' || part.type === 'reasoning' || part.type === 'thinking-block') continue;
            kept.push(part);
            if (part.type === 'meta' && echo !== '') kept.push({ type: 'text', choice: 0, text: echo });
          }
          return kept;
        });
      },
    };
  }
  return adapter;
}
