import { request } from 'undici';

/** What a raw streamed answer from the gateway held. */
export interface RawStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON of every `data:` event but [DONE], in order. */
  events: any[];
  /** Whether the stream ended with data: [DONE]. */
  done: boolean;
}

/** POSTs a request to the gateway and reads the whole SSE answer (no SDK in between). */
export async function postStream(url: string, body: unknown, headers: Record<string, string>): Promise<RawStream> {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.body.text();
  const events: any[] = [];
  let done = false;
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data === '') continue;
    if (data === '[DONE]') done = true;
    else events.push(JSON.parse(data));
  }
  return { status: res.statusCode, headers: res.headers, events, done };
}

/**
 * Reassembles chat.completion.chunk events into the chat.completion a non-streamed request
 * answers, checking OpenAI's delta rules on the way: the first delta of a tool call carries its
 * id, type and function name; later deltas of that call carry only its index and argument text.
 * Reasoning text deltas join into reasoning_content; thinking_blocks deltas (whole blocks) add up.
 */
export function assembleChat(events: any[]): { id: string; model: string; choices: any[]; usage?: any } {
  const choices = new Map<number, { index: number; message: any; finish_reason: string | null }>();
  let usage: any;
  for (const chunk of events) {
    if (chunk.object !== 'chat.completion.chunk') throw new Error(`not a chat chunk: ${JSON.stringify(chunk)}`);
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices ?? []) {
      let choice = choices.get(c.index);
      if (!choice) {
        if (c.delta?.role !== 'assistant') throw new Error(`choice ${c.index}: the first delta must carry role "assistant"`);
        choice = { index: c.index, message: { role: 'assistant', content: null, refusal: null }, finish_reason: null };
        choices.set(c.index, choice);
      }
      const delta = c.delta ?? {};
      if (typeof delta.content === 'string') choice.message.content = (choice.message.content ?? '') + delta.content;
      if (typeof delta.reasoning_content === 'string') choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + delta.reasoning_content;
      if (Array.isArray(delta.thinking_blocks)) (choice.message.thinking_blocks ??= []).push(...delta.thinking_blocks);
      for (const call of delta.tool_calls ?? []) {
        const calls: any[] = (choice.message.tool_calls ??= []);
        const known = calls[call.index];
        if (!known) {
          if (call.index !== calls.length) throw new Error(`tool call index ${call.index} skips ${calls.length}`);
          if (typeof call.id !== 'string' || call.type !== 'function' || typeof call.function?.name !== 'string') {
            throw new Error(`the first delta of tool call ${call.index} must carry id, type and function.name: ${JSON.stringify(call)}`);
          }
          const whole: any = { id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments ?? '' } };
          if (call.extra_content) whole.extra_content = call.extra_content;
          calls.push(whole);
        } else {
          if (call.id !== undefined || call.type !== undefined || call.function?.name !== undefined) {
            throw new Error(`a later delta of tool call ${call.index} must carry only index and arguments: ${JSON.stringify(call)}`);
          }
          known.function.arguments += call.function?.arguments ?? '';
        }
      }
      if (c.finish_reason) choice.finish_reason = c.finish_reason;
    }
  }
  const first = events[0] ?? {};
  return {
    id: first.id,
    model: first.model,
    choices: [...choices.values()].sort((a, b) => a.index - b.index).map((c) => ({ ...c, logprobs: null })),
    usage,
  };
}

/** The parts of a chat.completion that a reassembled stream must equal. */
export function comparable(answer: any): { id: string; model: string; choices: any[]; usage?: any } {
  return {
    id: answer.id,
    model: answer.model,
    choices: answer.choices.map((c: any) => ({ index: c.index, message: c.message, finish_reason: c.finish_reason, logprobs: c.logprobs ?? null })),
    usage: answer.usage,
  };
}
