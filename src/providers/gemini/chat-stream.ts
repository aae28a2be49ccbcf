/**
 * streamGenerateContent?alt=sse: each SSE event is a whole GenerateContentResponse holding
 * the next piece of every candidate. They become stream parts: text deltas, one
 * tool-call-start plus its arguments per function call (Gemini sends a call whole), a finish
 * per candidate, usage, and `done` once every candidate has finished (the Gemini stream has no
 * end marker of its own, so a stream cut before that is reported as cut).
 */
import { GatewayError } from '../../errors/gateway-error.js';
import type { StreamPart } from '../../protocol/stream-parts.js';
import type { FramedEvent, ProviderCall, StreamAdapter } from '../provider.js';
import { answerMeta, finishReasonOf, piecesOf, promptBlocked, toolCallId, usageOf } from './chat-response.js';
import { mapGoogleStreamError } from './errors.js';

interface ChoiceState {
  calls: number;
  finished: boolean;
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
        let chunk: Record<string, any>;
        try {
          chunk = JSON.parse(data);
        } catch {
          throw new GatewayError('provider_error', `${provider} sent a stream event that is not JSON.`, { provider, retryable: true });
        }
        if (chunk.error && typeof chunk.error === 'object') throw mapGoogleStreamError(provider, chunk.error);
        const out: StreamPart[] = [];
        if (!started) {
          started = true;
          out.push({ type: 'meta', ...answerMeta(chunk, call.body?.model) });
        }
        if (promptBlocked(chunk)) {
          out.push({ type: 'finish', choice: 0, reason: 'content_filter' });
          if (chunk.usageMetadata) out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
          out.push({ type: 'done' });
          ended = true;
          return out;
        }
        const candidates: Record<string, any>[] = Array.isArray(chunk.candidates) ? chunk.candidates : [];
        candidates.forEach((candidate, position) => {
          const choice = typeof candidate.index === 'number' ? candidate.index : position;
          let state = choices.get(choice);
          if (!state) choices.set(choice, (state = { calls: 0, finished: false }));
          if (state.finished) return;
          const { texts, calls } = piecesOf(candidate);
          for (const text of texts) out.push({ type: 'text', choice, text });
          for (const fn of calls) {
            const index = state.calls++;
            out.push({ type: 'tool-call-start', choice, index, id: toolCallId(index), name: fn.name });
            out.push({ type: 'tool-call-args', choice, index, args: fn.args });
          }
          if (candidate.finishReason) {
            state.finished = true;
            out.push({ type: 'finish', choice, reason: finishReasonOf(candidate.finishReason, state.calls > 0) });
          }
        });
        if (chunk.usageMetadata) out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
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
