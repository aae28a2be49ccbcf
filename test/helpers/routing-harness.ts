import { request } from 'undici';
import type { ServerResponse } from 'node:http';
import type { FakeReply, ReceivedRequest } from './fake-upstream.js';

/** What the gateway answered, read whole. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** The JSON of every SSE `data:` event but [DONE]. */
  events: any[];
  /** Whether an SSE answer ended with data: [DONE]. */
  done: boolean;
}

export const CHAT = '/v1/chat/completions';
export const UPSTREAM_CHAT = 'POST /v1/chat/completions';

export function parseAnswer(status: number, headers: Answer['headers'], text: string): Answer {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const events: any[] = [];
  let done = false;
  if (String(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    for (const block of text.split('\n\n')) {
      if (!block.startsWith('data: ')) continue;
      const data = block.slice(6);
      if (data === '[DONE]') done = true;
      else events.push(JSON.parse(data));
    }
  }
  return { status, headers, text, json, events, done };
}

/** POSTs JSON to the gateway (no SDK in between) and reads the whole answer. */
export async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.body.text();
  return parseAnswer(res.statusCode, res.headers, text);
}

export const chatBody = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], ...extra });

/** An OpenAI chat completion whose text names who answered. */
export function chatCompletion(text: string, usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1732000000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
  };
}

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1732000000, model: 'gpt-4o-mini', choices, ...extra })}\n\n`;

/** OpenAI SSE chunks carrying `pieces` as content deltas, then stop, usage and [DONE] (unless cut). */
export function streamChunks(pieces: string[], options: { done?: boolean; usage?: boolean } = {}): string[] {
  const out = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])];
  for (const p of pieces) out.push(chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }]));
  if (options.done === false) return out;
  out.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
  if (options.usage) out.push(chunk([], { usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } }));
  out.push('data: [DONE]\n\n');
  return out;
}

/** A reply that answers JSON, or a stream when the request asks for one, with `text`. */
export function answers(text: string): FakeReply {
  return (req: ReceivedRequest, res: ServerResponse) => {
    const body = req.json();
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of streamChunks(text.split(/(?<= )/), { usage: body.stream_options?.include_usage === true })) res.write(c);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chatCompletion(text)));
  };
}

export const upstreamError = (status: number, message = `upstream said ${status}`, headers: Record<string, string> = {}): FakeReply => ({
  status,
  headers,
  json: { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null } },
});

/** The text a chat answer (JSON or stream events) carries. */
export function answerText(a: Answer): string {
  if (a.events.length) return a.events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('');
  return a.json?.choices?.[0]?.message?.content;
}

/** A reply that records when the gateway hangs up on the request (the upstream sees it aborted), and never answers. */
export function hangAndWatch(onAbort: () => void): FakeReply {
  return (_req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) onAbort();
    });
  };
}

export function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > until) return reject(new Error('condition not met in time'));
      setTimeout(tick, 10);
    };
    tick();
  });
}
