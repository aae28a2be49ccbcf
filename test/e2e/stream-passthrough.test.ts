import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';

/**
 * An OpenAI stream from an OpenAI-speaking upstream passes through in the upstream's own bytes
 * when no stage reads its parts; what the SSE parser would write differently (comments, other
 * fields, CRLF) is written as the parsed path writes it, and the gateway still sees the end,
 * a failure and the usage of the stream.
 */

const chunk = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra });
const usageChunk = JSON.stringify({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [],
  usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
});

/** The upstream's answers by model name: the chunks it writes, one write each (a pause between them). */
const accented = Buffer.from(`data: ${chunk('é')}\n\n`);
const cut = accented.indexOf(Buffer.from('é')) + 1;

const STREAMS: Record<string, Array<string | Buffer>> = {
  plain: [`data: ${chunk('Hel')}\n\ndata: ${chunk('lo')}\n\n`, `data: ${chunk(' world')}\n\ndata: [DONE]\n\n`],
  // Events, [DONE] and a UTF-8 character cut across writes.
  split: [
    `data: ${chunk('Hel')}\n`,
    `\ndata: ${chunk('lo').slice(0, 40)}`,
    `${chunk('lo').slice(40)}\n\n`,
    accented.subarray(0, cut),
    accented.subarray(cut),
    'data: [DO',
    'NE]\n',
    '\n',
  ],
  // What OpenRouter and others add: comments, an id field, CRLF line ends, an empty data event.
  unusual: [`data: ${chunk('a')}\n\n: PROCESSING\n\n`, `id: 7\ndata: ${chunk('b')}\n\n`, `data: ${chunk('c')}\r\n\r\n`, 'data: \n\n', `data: ${chunk('d')}\n\ndata: [DONE]\n\n`],
  leadingComment: [': keep-alive\n\n', `data: ${chunk('x')}\n\ndata: [DONE]\n\n`],
  failing: [`data: ${chunk('Hel')}\n\n`, `data: ${chunk('lo')}\n\ndata: {"error":{"message":"the model fell over","type":"server_error"}}\n\n`],
  failingFirst: ['data: {"error":{"message":"overloaded","type":"server_error"}}\n\n'],
  short: [`data: ${chunk('Hel')}\n\n`, `data: ${chunk('lo')}\n\n`],
  // The last event without its blank line (some servers end so).
  noBlankLine: [`data: ${chunk('x')}\n\n`, 'data: [DONE]\n'],
  afterDone: [`data: ${chunk('x')}\n\ndata: [DONE]\n\ndata: ${chunk('late')}\n\n`],
  usage: [`data: ${chunk('x')}\n\n`, `data: ${usageChunk}\n\ndata: [DONE]\n\n`],
  // The upstream body ends a while after [DONE] (its rest is drained, the connection kept).
  lateEnd: [`data: ${chunk('x')}\n\ndata: [DONE]\n\n`, ': bye\n\n'],
  // About 4 MB in 8 writes: more than a caller's socket takes at once (the upstream waits for a slow reader).
  large: [...Array.from({ length: 8 }, (_, w) => Array.from({ length: 128 }, (_, i) => `data: ${chunk(`${w}.${i} ${'x'.repeat(4000)}`)}\n\n`).join('')), 'data: [DONE]\n\n'],
  // A long stream (40 writes): long enough for its caller to leave in the middle.
  long: [...Array.from({ length: 40 }, (_, i) => `data: ${chunk(`part ${i}`)}\n\n`), 'data: [DONE]\n\n'],
};

const KEY = 'sk-passthrough-test-0123456789';

describe('OpenAI streams passed through', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  const sockets: unknown[] = [];
  /** Models whose upstream answer was cut before its last write (the caller left). */
  const cutStreams: string[] = [];

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/chat/completions', async (req, res) => {
        const chunks = STREAMS[req.json().model]!;
        sockets.push(res.socket);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_up_1' });
        res.flushHeaders();
        for (const text of chunks) {
          if (res.destroyed) break;
          res.write(text);
          await new Promise((r) => setTimeout(r, chunks === STREAMS.lateEnd ? 100 : 15));
        }
        if (res.destroyed) cutStreams.push(req.json().model);
        else res.end();
      })
      .start();
    gw = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } }, metrics: { models: ['usage'] } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  async function stream(model: string, extra: Record<string, unknown> = {}) {
    const res = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true, ...extra }),
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  it('passes the upstream bytes as they are, with the gateway headers', async () => {
    const res = await stream('plain');
    expect(res.status).toBe(200);
    expect(res.text).toBe(STREAMS.plain!.join(''));
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-gateway-provider']).toBe('openai');
    expect(res.headers['x-gateway-request-id']).toEqual(expect.any(String));
    expect(res.headers['x-request-id']).toBe('req_up_1');
  });

  it('events, [DONE] and characters cut across upstream chunks arrive whole', async () => {
    const res = await stream('split');
    expect(res.text).toBe(`data: ${chunk('Hel')}\n\ndata: ${chunk('lo')}\n\ndata: ${chunk('é')}\n\ndata: [DONE]\n\n`);
  });

  it('writes what the parser reads differently as the parsed stream does: comments, fields and CRLF dropped', async () => {
    const res = await stream('unusual');
    expect(res.text).toBe(`data: ${chunk('a')}\n\ndata: ${chunk('b')}\n\ndata: ${chunk('c')}\n\ndata: ${chunk('d')}\n\ndata: [DONE]\n\n`);
    const lead = await stream('leadingComment');
    expect(lead.text).toBe(`data: ${chunk('x')}\n\ndata: [DONE]\n\n`);
  });

  it('an upstream error event mid-stream ends the answer with one error event and no [DONE]', async () => {
    const res = await stream('failing');
    expect(res.status).toBe(200);
    const events = res.text.split('\n\n').filter(Boolean);
    expect(events.slice(0, 2)).toEqual([`data: ${chunk('Hel')}`, `data: ${chunk('lo')}`]);
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]!.slice(6))).toMatchObject({ status: 'failure', error: { type: 'provider_error', message: expect.stringContaining('the model fell over') } });
    expect(res.text).not.toContain('[DONE]');
  });

  it('an error event before anything else is an error answer, not a stream', async () => {
    const res = await stream('failingFirst');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse(res.text).error).toMatchObject({ type: 'provider_error', message: expect.stringContaining('overloaded') });
  });

  it('a stream that ends without [DONE] is reported as cut', async () => {
    const res = await stream('short');
    const events = res.text.split('\n\n').filter(Boolean);
    expect(events.slice(0, 2)).toEqual([`data: ${chunk('Hel')}`, `data: ${chunk('lo')}`]);
    expect(JSON.parse(events.at(-1)!.slice(6)).error).toMatchObject({ type: 'provider_error', code: 'provider_error' });
    expect(res.text).not.toContain('[DONE]');
  });

  it('a last [DONE] without its blank line still ends the answer whole', async () => {
    const res = await stream('noBlankLine');
    expect(res.text).toBe(`data: ${chunk('x')}\n\ndata: [DONE]\n\n`);
  });

  it('passes nothing after [DONE]', async () => {
    const res = await stream('afterDone');
    expect(res.text).toBe(`data: ${chunk('x')}\n\ndata: [DONE]\n\n`);
  });

  it('drains what follows [DONE] and keeps the upstream connection for the next request', async () => {
    // A gateway of its own: its pool holds no other connection to the upstream.
    const own = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    try {
      const send = async () => {
        const res = await request(`${own.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` },
          body: JSON.stringify({ model: 'lateEnd', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        });
        return res.body.text();
      };
      expect(await send()).toBe(`data: ${chunk('x')}\n\ndata: [DONE]\n\n`);
      await new Promise((r) => setTimeout(r, 250));
      const before = sockets.length;
      expect(await send()).toBe(`data: ${chunk('x')}\n\ndata: [DONE]\n\n`);
      expect(sockets.length).toBe(before + 1);
      expect(sockets.at(-1)).toBe(sockets.at(-2));
    } finally {
      await own.close();
    }
  });

  it('a caller that reads slowly gets every byte in order (the upstream waits while its socket is full)', async () => {
    const res = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: 'large', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.statusCode).toBe(200);
    // Nothing read for a while: the gateway's writes to this caller fill its socket.
    await new Promise((r) => setTimeout(r, 400));
    const parts: Buffer[] = [];
    for await (const part of res.body) {
      parts.push(part as Buffer);
      // Read in small steps, slower than the upstream writes.
      if (parts.length % 16 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    expect(Buffer.concat(parts).toString('utf8')).toBe(STREAMS.large!.join(''));
  });

  it('a caller that leaves mid-stream cuts the upstream stream', async () => {
    const res = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-provider': 'openai', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: 'long', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const reader = res.body[Symbol.asyncIterator]();
    expect(((await reader.next()).value as Buffer).toString('utf8')).toContain('part 0');
    res.body.destroy();
    // The upstream's writes are 15 ms apart: 40 of them would take 600 ms.
    const deadline = Date.now() + 2_000;
    while (!cutStreams.includes('long') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(cutStreams).toContain('long');
  });

  it('counts the usage chunk of a stream that asked for it', async () => {
    const tokens = async () => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('gateway_tokens_total{') && l.includes('direction="output"') && l.includes('model="usage"'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await tokens();
    const res = await stream('usage', { stream_options: { include_usage: true } });
    expect(res.text).toBe(STREAMS.usage!.join(''));
    expect((await tokens()) - before).toBe(5);
  });

  it('the log line of a passed-through stream names the status and the provider', async () => {
    const res = await stream('plain');
    const id = res.headers['x-gateway-request-id'];
    await new Promise((r) => setTimeout(r, 20));
    const line = gw.logs.records().find((r) => r.requestId === id && r.msg === 'request');
    expect(line).toMatchObject({ status: 200, provider: 'openai', route: 'POST /v1/chat/completions' });
  });
});
