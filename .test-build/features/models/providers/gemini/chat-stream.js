/**
 * streamGenerateContent?alt=sse: each SSE event is a whole GenerateContentResponse holding
 * the next piece of every candidate. They become stream parts: text deltas, one
 * tool-call-start plus its arguments per function call (Gemini sends a call whole), a finish
 * per candidate, usage, and `done` once every candidate has finished (the Gemini stream has no
 * end marker of its own, so a stream cut before that is reported as cut).
 */
import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import { answerMeta, finishReasonOf, promptBlocked, toolCallId, usageOf } from './chat-response.js';
import { mapGoogleStreamError } from './errors.js';
import { ThoughtState } from './thoughts.js';
export function geminiStream(provider) {
    return {
        framing: 'sse',
        createMapper(call) {
            const expected = typeof call.body?.n === 'number' && call.body.n > 1 ? call.body.n : 1;
            const choices = new Map();
            let started = false;
            let ended = false;
            return (event) => {
                if (ended || !('data' in event))
                    return undefined;
                const data = event.data.trim();
                if (data === '' || data === '[DONE]')
                    return undefined;
                let chunk;
                try {
                    chunk = JSON.parse(data);
                }
                catch {
                    throw new GatewayError('provider_error', `${provider} sent a stream event that is not JSON.`, { provider, retryable: true });
                }
                if (chunk.error && typeof chunk.error === 'object')
                    throw mapGoogleStreamError(provider, chunk.error);
                const out = [];
                if (!started) {
                    started = true;
                    const prompt = Number(chunk.usageMetadata?.promptTokenCount);
                    const cached = Number(chunk.usageMetadata?.cachedContentTokenCount ?? 0);
                    out.push({ type: 'meta', ...answerMeta(chunk, call.body?.model), ...(prompt > 0 ? { inputTokens: prompt, cachedTokens: cached } : {}) });
                }
                if (promptBlocked(chunk)) {
                    out.push({ type: 'finish', choice: 0, reason: 'content_filter' });
                    if (chunk.usageMetadata)
                        out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
                    out.push({ type: 'done' });
                    ended = true;
                    return out;
                }
                const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
                candidates.forEach((candidate, position) => {
                    const choice = typeof candidate.index === 'number' ? candidate.index : position;
                    let state = choices.get(choice);
                    if (!state)
                        choices.set(choice, (state = { calls: 0, finished: false, thoughts: new ThoughtState() }));
                    if (state.finished)
                        return;
                    const events = [];
                    const parts = candidate.content?.parts;
                    if (Array.isArray(parts))
                        for (const part of parts)
                            state.thoughts.read(part, events);
                    if (candidate.finishReason)
                        state.thoughts.close(events);
                    for (const e of events) {
                        if (e.kind === 'text')
                            out.push({ type: 'text', choice, text: e.text });
                        else if (e.kind === 'reasoning')
                            out.push({ type: 'reasoning', choice, text: e.text });
                        else if (e.kind === 'block')
                            out.push({ type: 'thinking-block', choice, block: e.block });
                        else {
                            const index = state.calls++;
                            const start = { type: 'tool-call-start', choice, index, id: e.id ?? toolCallId(index), name: e.name };
                            if (e.signature)
                                start.signature = e.signature;
                            out.push(start, { type: 'tool-call-args', choice, index, args: e.args });
                        }
                    }
                    if (candidate.finishReason) {
                        state.finished = true;
                        out.push({ type: 'finish', choice, reason: finishReasonOf(candidate.finishReason, state.calls > 0) });
                    }
                });
                if (chunk.usageMetadata)
                    out.push({ type: 'usage', usage: usageOf(chunk.usageMetadata) });
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
//# sourceMappingURL=chat-stream.js.map