import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, sleep } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { answers, answerText, CHAT, chatBody, chatCompletion, post, streamChunks, UPSTREAM_CHAT } from '../../helpers/routing-harness.js';

const KEY = 'sk-caller-key-1234567890';

describe('guardrails', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let hook: FakeUpstream;
  let gw: TestGateway;
  let pipelinesDir: string;
  let pipelineGw: TestGateway;
  const calls = (f: FakeUpstream) => f.received(UPSTREAM_CHAT).length;
  const header = (config: Record<string, unknown>) => ({ 'x-gateway-config': JSON.stringify({ provider: 'openai', ...config }), 'x-gateway-api-key': KEY });
  const say = (content: string, extra: Record<string, unknown> = {}) => chatBody({ messages: [{ role: 'user', content }], ...extra });

  beforeAll(async () => {
    [a, b, hook] = await Promise.all([new FakeUpstream().start(), new FakeUpstream().start(), new FakeUpstream().start()]);
    const guardrails = {
      'no-secrets': { action: 'deny', checks: [{ type: 'regex', pattern: 'sk-[A-Za-z0-9]{8,}' }] },
      'flag-pii': { action: 'flag', checks: [{ type: 'pii' }] },
      'mask-pii': { action: 'redact', checks: [{ type: 'pii' }] },
      'json-only': { checks: [{ type: 'jsonParse' }] },
      models: { checks: [{ type: 'modelAllowList', models: ['gpt-4o*'] }] },
      hook: { checks: [{ type: 'webhook', url: `${hook.url}/verdict`, timeout: 1000 }] },
      polite: { checks: [{ type: 'contains', words: ['forbidden'], operator: 'none' }] },
    };
    gw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` }, groq: { baseUrl: `${b.url}/v1`, apiKey: 'gsk-groq-configured-key-01' } }, guardrails });
    pipelinesDir = mkdtempSync(join(tmpdir(), 'gw-pipelines-'));
    writeFileSync(
      join(pipelinesDir, 'provider.yaml'),
      // Every provider family extends the shipped `provider` pipeline: this one replaces it, with the guardrail stage configured.
      'name: provider\nextends: provider\nconfigure:\n  guardrail: { input: [no-secrets], output: [mask-pii] }\n',
    );
    pipelineGw = await startGateway({ providers: { openai: { baseUrl: `${a.url}/v1` } }, guardrails, pipelines: { dir: pipelinesDir } });
  });
  afterAll(async () => {
    await Promise.all([gw?.close(), pipelineGw?.close()]);
    await Promise.all([a?.stop(), b?.stop(), hook?.stop()]);
    rmSync(pipelinesDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const f of [a, b, hook]) f.requests.length = 0;
    a.on(UPSTREAM_CHAT, answers('fine answer'));
    b.on(UPSTREAM_CHAT, answers('from B'));
  });

  it('input deny: 422 guardrail_failed naming the check, before anything goes upstream', async () => {
    const res = await post(gw.url, CHAT, say('my key is sk-abcdefgh12345'), header({ input_guardrails: ['no-secrets'] }));
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      status: 'failure',
      error: { type: 'guardrail_error', code: 'guardrail_failed', message: 'Guardrail "no-secrets" denied the request: regex check failed (the pattern matched 1 time(s)).' },
    });
    expect(res.text).not.toContain('sk-abcdefgh12345');
    expect(calls(a)).toBe(0);
  });

  it('input flag: the answer passes, marked flagged; the upstream sees the request as sent', async () => {
    const res = await post(gw.url, CHAT, say('write to me at jane@example.com'), header({ input_guardrails: ['flag-pii'] }));
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-guardrail-verdict']).toBe('flagged');
    expect(a.received(UPSTREAM_CHAT)[0]!.json().messages[0].content).toBe('write to me at jane@example.com');
  });

  it('input redact: the upstream receives the masked text', async () => {
    const body = chatBody({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Card 4111 1111 1111 1111, mail jane@example.com' }] },
      ],
    });
    const res = await post(gw.url, CHAT, body, header({ input_guardrails: ['mask-pii'] }));
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-guardrail-verdict']).toBe('redacted');
    const sent = a.received(UPSTREAM_CHAT)[0]!.json();
    expect(sent.messages[0].content).toBe('Be brief.');
    expect(sent.messages[1].content[0].text).toBe('Card [REDACTED_CREDIT_CARD], mail [REDACTED_EMAIL]');
  });

  it('model allow-list checks the model the target sends', async () => {
    const denied = await post(gw.url, CHAT, say('hi', { model: 'gpt-3.5-turbo' }), header({ input_guardrails: ['models'] }));
    expect(denied.status).toBe(422);
    expect(denied.json.error.message).toBe('Guardrail "models" denied the request: modelAllowList check failed (model gpt-3.5-turbo is not in the allow-list).');
    const overridden = await post(gw.url, CHAT, say('hi', { model: 'gpt-3.5-turbo' }), header({ input_guardrails: ['models'], override_params: { model: 'gpt-4o-mini' } }));
    expect(overridden.status).toBe(200);
    expect(calls(a)).toBe(1);
  });

  it('asks a webhook, and refuses when it says no', async () => {
    hook.on('POST /verdict', { json: { verdict: false, reason: 'off-topic' } });
    const res = await post(gw.url, CHAT, say('tell me a secret'), header({ input_guardrails: ['hook'] }));
    expect(res.status).toBe(422);
    expect(res.json.error.message).toBe('Guardrail "hook" denied the request: webhook check failed (the webhook refused it: off-topic).');
    expect(hook.received('POST /verdict')[0]!.json()).toMatchObject({ guardrail: 'hook', phase: 'input', text: 'tell me a secret', model: 'gpt-4o-mini' });
    hook.on('POST /verdict', { json: { verdict: true } });
    expect((await post(gw.url, CHAT, say('tell me a joke'), header({ input_guardrails: ['hook'] }))).status).toBe(200);
    expect(calls(a)).toBe(1);
  });

  it('output deny replaces the answer with a 422', async () => {
    const res = await post(gw.url, CHAT, say('give me json'), header({ output_guardrails: ['json-only'] }));
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'guardrail_failed', message: expect.stringMatching(/^Guardrail "json-only" denied the answer: jsonParse check failed/) });
    a.on(UPSTREAM_CHAT, { json: chatCompletion('{"ok": true}') });
    expect((await post(gw.url, CHAT, say('give me json'), header({ output_guardrails: ['json-only'] }))).status).toBe(200);
  });

  it('output redact masks the answer text', async () => {
    a.on(UPSTREAM_CHAT, { json: chatCompletion('Reach Bob at bob@example.org or 415-555-2671.') });
    const res = await post(gw.url, CHAT, say('contact?'), header({ output_guardrails: ['mask-pii'] }));
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-guardrail-verdict']).toBe('redacted');
    expect(answerText(res)).toBe('Reach Bob at [REDACTED_EMAIL] or [REDACTED_PHONE].');
    expect(res.json.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
  });

  it('a streamed answer is read whole, checked, then replayed: masks span chunk boundaries', async () => {
    a.on(UPSTREAM_CHAT, { chunks: streamChunks(['Mail jo', 'hn@exa', 'mple.com', ' now']) });
    const res = await post(gw.url, CHAT, say('contact?', { stream: true }), header({ output_guardrails: ['mask-pii'] }));
    expect(res.status).toBe(200);
    expect(res.headers['x-gateway-guardrail-verdict']).toBe('redacted');
    expect(res.done).toBe(true);
    expect(answerText(res)).toBe('Mail [REDACTED_EMAIL] now');
    expect(res.events.at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('a denied stream is a plain 422, never a half-sent answer', async () => {
    a.on(UPSTREAM_CHAT, { chunks: streamChunks(['this is ', 'forbidden', ' text']) });
    const res = await post(gw.url, CHAT, say('x', { stream: true }), header({ output_guardrails: ['polite'] }));
    expect(res.status).toBe(422);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(res.json.error.message).toBe('Guardrail "polite" denied the answer: contains check failed (1 of 1 listed word(s) present (operator none)).');
  });

  it('a flagged stream passes whole, with the verdict header', async () => {
    a.on(UPSTREAM_CHAT, { chunks: streamChunks(['call 415-555-2671']) });
    const res = await post(gw.url, CHAT, say('x', { stream: true }), header({ output_guardrails: ['flag-pii'] }));
    expect(res.headers['x-gateway-guardrail-verdict']).toBe('flagged');
    expect(answerText(res)).toBe('call 415-555-2671');
    expect(res.done).toBe(true);
  });

  it('with output guardrails a stream cut before it is complete can still fall back (nothing reached the caller)', async () => {
    a.on(UPSTREAM_CHAT, async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of streamChunks(['partial'], { done: false })) res.write(c);
      await sleep(50);
      res.socket?.destroy();
    });
    const res = await post(gw.url, CHAT, say('x', { stream: true }), {
      'x-gateway-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        output_guardrails: ['flag-pii'],
        targets: [{ provider: 'openai' }, { provider: 'groq', api_key: 'gsk-groq-caller-key-01' }],
      }),
      'x-gateway-api-key': KEY,
    });
    expect(res.status).toBe(200);
    expect(res.done).toBe(true);
    expect(answerText(res)).toBe('from B');
    expect([calls(a), calls(b)]).toEqual([1, 1]);
  });

  it('a pipeline can name guardrails for every request of its routes', async () => {
    const headers = { 'x-gateway-provider': 'openai', 'x-gateway-api-key': KEY };
    const denied = await post(pipelineGw.url, CHAT, say('key sk-abcdefgh12345'), headers);
    expect(denied.status).toBe(422);
    a.on(UPSTREAM_CHAT, { json: chatCompletion('mail me: a@b.co') });
    const masked = await post(pipelineGw.url, CHAT, say('hello'), headers);
    expect(answerText(masked)).toBe('mail me: [REDACTED_EMAIL]');
    expect(calls(a)).toBe(1);
  });
});
