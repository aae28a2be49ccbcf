import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { parseForm } from '../../helpers/multipart.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A checked upload is spooled, so a retry or a fallback sends the whole form again (each
 * attempt streams it anew), with the file bytes and every field intact.
 */
describe('uploads retry and fall back like any request', () => {
  let first: FakeUpstream;
  let second: FakeUpstream;
  let gw: TestGateway;
  beforeAll(async () => {
    first = await new FakeUpstream().on('POST /v1/audio/transcriptions', { status: 503, json: { error: { message: 'busy' } } }).start();
    second = await new FakeUpstream().on('POST /v1/audio/transcriptions', { json: { text: 'from the second' } }).start();
    gw = await startGateway({
      logging: { level: 'warn' },
      providers: { openai: { baseUrl: `${first.url}/v1` }, groq: { baseUrl: `${second.url}/v1`, apiKey: 'gsk-replay-0001' } },
      auth: { apiKeys: [{ key: 'cfg-replay-gateway-0001', user: 'replay@example.com' }] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await first?.stop();
    await second?.stop();
  });

  it('a transcription that fails on the first target is sent whole to the next, and retried on the first', async () => {
    const audio = randomBytes(3 * 1024 * 1024);
    const client = new OpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: 'sk-replay-caller-0001',
      maxRetries: 0,
      defaultHeaders: {
        'x-gateway-provider': 'openai',
        // The configured groq key serves only requests with a gateway credential.
        'x-gateway-token': 'cfg-replay-gateway-0001',
        'x-gateway-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', retry: { attempts: 1 } }, { provider: 'groq' }] }),
      },
    });
    const answer = await client.audio.transcriptions.create({ file: await toFile(audio, 'a.mp3', { type: 'audio/mpeg' }), model: 'whisper-1', language: 'en' });
    expect(answer.text).toBe('from the second');
    const tries = [...first.received('POST /v1/audio/transcriptions'), ...second.received('POST /v1/audio/transcriptions')];
    expect(tries).toHaveLength(3);
    for (const sent of tries) {
      const form = await parseForm(sent);
      expect(sha(form.files[0]!.data)).toBe(sha(audio));
      expect(form.fields).toMatchObject({ model: ['whisper-1'], language: ['en'] });
      expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
    }
    expect(second.received('POST /v1/audio/transcriptions')[0]!.headers.authorization).toBe('Bearer gsk-replay-0001');
  });
});
