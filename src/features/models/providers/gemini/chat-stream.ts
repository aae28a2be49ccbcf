/**
 * streamGenerateContent?alt=sse: each SSE event is a whole GenerateContentResponse holding
 * the next piece of every candidate. They become stream parts: text deltas, one
 * tool-call-start plus its arguments per function call (Gemini sends a call whole), a finish
 * per candidate, usage, and `done` once every candidate has finished (the Gemini stream has no
 * end marker of its own, so a stream cut before that is reported as cut).
 */
import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';
import type { FramedEvent, ProviderCall, StreamAdapter } from '../provider.js';
import { answerMeta, finishReasonOf, promptBlocked, toolCallId, usageOf } from './chat-response.js';
import { mapGoogleStreamError } from './errors.js';
import { ThoughtState, type PartEvent } from './thoughts.js';
import { isJsonObject, objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';

interface ChoiceState {
  calls: number;
  finished: boolean;
  thoughts: ThoughtState;
}

export function geminiStream(provider: string): StreamAdapter {
  return {
    framing: 'sse',
    createMapper(call: ProviderCall) {
      const expected = typeof call.body?.n === 'number' && call.body.n > 1 ? call.body.n : 1;
      const choices = new Map<number, ChoiceState>();
      let started = false;
      let ended = false;
      return (event: FramedEvent): StreamPart[] | undefined => {
        if (ended || !('data' in event)) return undefined;
        const data = event.data.trim();
        if (data === '' || data === '[DONE]') return undefined;
        let chunk: JsonObject;
        try {
          chunk = objectOf(JSON.parse(data));
        } catch {
          throw new GatewayError('provider_error', `${provider} sent a stream event that is not JSON.`, { provider, retryable: true });
        }
        if (isJsonObject(chunk.error)) throw mapGoogleStreamError(provider, chunk.error);
        const out: StreamPart[] = [];
        if (!started) {
          started = true;
          const usage = objectOf(chunk.usageMetadata);
          const prompt = Number(usage.promptTokenCount);
          const cached = Number(usage.cachedContentTokenCount ?? 0);
          out.push({ type: 'meta', ...answerMeta(chunk, call.body?.model), ...(prompt > 0 ? { inputTokens: prompt, cachedTokens: cached } : {}) });
        }
        if (promptBlocked(chunk)) {
          out.push({ type: 'finish', choice: 0, reason: 'content_filter' });
          if (isJsonObject(chunk.usageMetadata)) out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
          out.push({ type: 'done' });
          ended = true;
          return out;
        }
        const candidates = objectsOf(chunk.candidates);
        candidates.forEach((candidate, position) => {
          const choice = typeof candidate.index === 'number' ? candidate.index : position;
          let state = choices.get(choice);
          if (!state) choices.set(choice, (state = { calls: 0, finished: false, thoughts: new ThoughtState() }));
          if (state.finished) return;
          const events: PartEvent[] = [];
          const parts = objectOf(candidate.content).parts;
          if (Array.isArray(parts)) for (const part of parts) state.thoughts.read(objectOf(part), events);
          if (candidate.finishReason) state.thoughts.close(events);
          for (const e of events) {
            if (e.kind === 'text') out.push({ type: 'text', choice, text: e.text });
            else if (e.kind === 'reasoning') out.push({ type: 'reasoning', choice, text: e.text });
            else if (e.kind === 'block') out.push({ type: 'thinking-block', choice, block: e.block });
            else {
              const index = state.calls++;
              const start: StreamPart = { type: 'tool-call-start', choice, index, id: e.id ?? toolCallId(index), name: e.name };
              if (e.signature) start.signature = e.signature;
              out.push(start, { type: 'tool-call-args', choice, index, args: e.args });
            }
          }
          if (candidate.finishReason) {
            state.finished = true;
            out.push({ type: 'finish', choice, reason: finishReasonOf(candidate.finishReason, state.calls > 0) });
          }
        });
        if (isJsonObject(chunk.usageMetadata)) out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
        const finished = [...choices.values()].filter((s) => s.finished).length;
        if (finished >= expected && finished === choices.size) {
          out.push({ type: 'done' });
          ended = true;
        }
        return out;
      };
    },
  };
}
