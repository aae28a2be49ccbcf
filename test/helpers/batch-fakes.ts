import type { ServerResponse } from 'node:http';
import type { ReceivedRequest } from './fake-upstream.js';

/** One batch input line asking a chat model to answer `id` (the fake answers by it). */
export function chatLine(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    custom_id: id,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'deepseek-chat', messages: [{ role: 'user', content: id }], ...extra },
  });
}

/**
 * A chat upstream that counts requests per custom_id (the user message), answers after
 * `delayMs`, and can refuse chosen ids with 429 the first `rateLimited` times.
 */
export class CountingChat {
  readonly seen = new Map<string, number>();
  answered = 0;
  constructor(private readonly opts: { delayMs?: number; rateLimit?: Record<string, number> } = {}) {}

  count(id: string): number {
    return this.seen.get(id) ?? 0;
  }

  handler = async (req: ReceivedRequest, res: ServerResponse): Promise<void> => {
    const body = req.json();
    const id = String(body.messages?.[0]?.content ?? '');
    const n = (this.seen.get(id) ?? 0) + 1;
    this.seen.set(id, n);
    if (n <= (this.opts.rateLimit?.[id] ?? 0)) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }));
      return;
    }
    if (this.opts.delayMs) await new Promise((r) => setTimeout(r, this.opts.delayMs));
    this.answered++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${id}`,
        object: 'chat.completion',
        created: 1732000000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `answer to ${id}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }),
    );
  };
}

/** Output or error file lines, parsed. */
export function jsonl(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}
