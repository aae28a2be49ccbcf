import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { fixtureBytes, fixtureJson } from '../helpers/fixtures.js';
import { parseForm } from '../helpers/multipart.js';
import { makePng } from '../helpers/png.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const KEY = 'sk-test-images-audio-0001';

/** Sends a multipart body built by hand (parts in the given order), optionally chunked without a length. */
function sendForm(
  url: string,
  parts: Array<{ name: string; value: string } | { name: string; filename: string; type: string; data: Buffer }>,
  options: { chunked?: boolean; provider?: string } = {},
): Promise<{ status: number; body: any }> {
  const boundary = `----test${randomBytes(6).toString('hex')}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    else {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`));
      pieces.push(part.data, Buffer.from('\r\n'));
    }
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(pieces);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'x-gateway-provider': options.provider ?? 'openai',
      authorization: `Bearer ${KEY}`,
    };
    if (!options.chunked) headers['content-length'] = String(body.length);
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    // Write in 64 KB pieces, as a real client streams.
    for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536));
    req.end();
  });
}

describe('images and audio through the openai SDK', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  /** A gateway whose openai provider is the bare upstream. */
  let gwBare: TestGateway;
  let client: OpenAI;
  let speechGate: { release: () => void; wait: Promise<void> };
  /** A bare upstream that tolerates cut-off requests: counts requests started and completed. */
  let bare: Server;
  let bareCounts = { started: 0, completed: 0 };

  beforeAll(async () => {
    upstream = await new FakeUpstream()
      .on('POST /v1/images/generations', { json: fixtureJson('openai', 'image-generation') })
      .on('POST /v1/images/edits', { json: fixtureJson('openai', 'image-edit') })
      .on('POST /together/v1/images/generations', { json: fixtureJson('together-ai', 'image-generation') })
      .on('POST /xai/v1/images/generations', { json: fixtureJson('x-ai', 'image-generation') })
      .on('POST /v1/audio/speech', async (_req, res) => {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(Buffer.from('ID3-first-audio-bytes'));
        await speechGate.wait;
        res.end(Buffer.from('-the-rest-of-the-audio'));
      })
      .on('POST /v1/audio/transcriptions', async (req, res) => {
        const form = await parseForm(req);
        const format = form.fields.response_format?.[0] ?? 'json';
        if (format === 'verbose_json') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(fixtureJson('openai', 'transcription-verbose')));
        } else if (format === 'srt' || format === 'text') {
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end(format === 'srt' ? fixtureBytes('openai', 'transcription.srt') : 'Hello from the gateway test.\n');
        } else if (format === 'vtt') {
          res.writeHead(200, { 'content-type': 'text/vtt; charset=utf-8' });
          res.end(fixtureBytes('openai', 'transcription.vtt'));
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ text: 'Hello from the gateway test.' }));
        }
      })
      .on('POST /v1/audio/translations', { json: { text: 'Hello, this was translated.' } })
      .on('POST /groq/openai/v1/audio/transcriptions', { json: { text: 'Groq heard this.', x_groq: { id: 'req_01' } } })
      .start();
    bare = createServer((req, res) => {
      bareCounts.started++;
      req.on('data', () => undefined);
      req.on('end', () => {
        bareCounts.completed++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"text":"should not happen"}');
      });
      req.on('error', () => undefined);
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    gw = await startGateway({
      providers: {
        openai: { baseUrl: `${upstream.url}/v1` },
        'together-ai': { baseUrl: `${upstream.url}/together/v1` },
        'x-ai': { baseUrl: `${upstream.url}/xai/v1` },
        groq: { baseUrl: `${upstream.url}/groq/openai/v1` },
      },
    });
    gwBare = await startGateway({ providers: { openai: { baseUrl: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1` } } });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'openai' }, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.close();
    await gwBare?.close();
    await upstream?.stop();
    bare?.closeAllConnections();
    await new Promise((r) => bare?.close(r));
  });

  const calls = (route: string) => upstream.received(route).length;

  describe('image generations', () => {
    it('forwards a dall-e-3 generation and answers the image result', async () => {
      const answer = await client.images.generate({ model: 'dall-e-3', prompt: 'A lighthouse', size: '1024x1792', quality: 'hd', style: 'natural' });
      expect(answer).toEqual(fixtureJson('openai', 'image-generation'));
      expect(upstream.received('POST /v1/images/generations').at(-1)!.json()).toEqual({
        model: 'dall-e-3',
        prompt: 'A lighthouse',
        size: '1024x1792',
        quality: 'hd',
        style: 'natural',
      });
    });

    it('answers 422 for a well-formed but impossible family combination, 400 out of bounds', async () => {
      const before = calls('POST /v1/images/generations');
      const e1 = await client.images.generate({ model: 'dall-e-3', prompt: 'x', n: 2 }).catch((e) => e);
      expect(e1.status).toBe(422);
      expect(e1.error).toMatchObject({ code: 'semantic_error', param: 'n' });
      const e2 = await client.images.generate({ model: 'dall-e-2', prompt: 'x', n: 11 }).catch((e) => e);
      expect(e2.status).toBe(400);
      expect(e2.error).toMatchObject({ code: 'missing_required_parameter', param: 'n' });
      expect(calls('POST /v1/images/generations')).toBe(before);
    });

    it('translates a together-ai generation (size -> width/height, b64_json -> base64) into the image result', async () => {
      const together = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'together-ai' }, maxRetries: 0 });
      const answer = await together.images.generate({ model: 'black-forest-labs/FLUX.1-schnell', prompt: 'A fox', size: '512x512', response_format: 'b64_json' });
      expect(typeof answer.created).toBe('number');
      expect(answer.data).toEqual([{ b64_json: fixtureJson('together-ai', 'image-generation').data[0].b64_json }]);
      expect(upstream.received('POST /together/v1/images/generations').at(-1)!.json()).toEqual({
        model: 'black-forest-labs/FLUX.1-schnell',
        prompt: 'A fox',
        width: 512,
        height: 512,
        response_format: 'base64',
      });
    });

    it('passes an x-ai generation through and adds the created time it lacks', async () => {
      const xai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, defaultHeaders: { 'x-gateway-provider': 'x-ai' }, maxRetries: 0 });
      const answer = await xai.images.generate({ model: 'grok-2-image', prompt: 'A red fox in snow' });
      expect(typeof answer.created).toBe('number');
      expect(answer.data).toEqual(fixtureJson('x-ai', 'image-generation').data);
    });
  });

  describe('image edits', () => {
    const transparent = makePng({ width: 64, alpha: 255, transparentAt: 64 * 40 + 3, filter: 4 });
    const opaque = makePng({ width: 64, alpha: 255 });

    it('sends a transparent PNG and the fields upstream byte for byte', async () => {
      const answer = await client.images.edit({
        image: await toFile(transparent, 'sketch.png', { type: 'image/png' }),
        prompt: 'Add a red balloon',
        n: 2,
        size: '512x512',
        response_format: 'b64_json',
      });
      expect(answer).toEqual(fixtureJson('openai', 'image-edit'));
      const sent = upstream.received('POST /v1/images/edits').at(-1)!;
      const form = await parseForm(sent);
      expect(sha(form.files[0]!.data)).toBe(sha(transparent));
      expect(form.files[0]).toMatchObject({ field: 'image', filename: 'sketch.png' });
      expect(form.fields).toMatchObject({ prompt: ['Add a red balloon'], n: ['2'], size: ['512x512'], response_format: ['b64_json'] });
      expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
      expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('takes an opaque image with a mask of the same size', async () => {
      const mask = makePng({ width: 64, alpha: 0 });
      await client.images.edit({
        image: await toFile(opaque, 'photo.png', { type: 'image/png' }),
        mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
        prompt: 'Replace the sky',
      });
      const form = await parseForm(upstream.received('POST /v1/images/edits').at(-1)!);
      expect(sha(form.files.find((f) => f.field === 'mask')!.data)).toBe(sha(mask));
      expect(sha(form.files.find((f) => f.field === 'image')!.data)).toBe(sha(opaque));
    });

    const cases: Array<[string, () => Promise<Record<string, unknown>>, number, string]> = [
      ['a file that is not a PNG', async () => ({ image: await toFile(Buffer.from('GIF89a not a png at all'), 'a.png'), prompt: 'x' }), 400, 'image'],
      ['a PNG that is not square', async () => ({ image: await toFile(makePng({ width: 64, height: 32, transparentAt: 1 }), 'a.png'), prompt: 'x' }), 400, 'image'],
      ['an image of 4 MB or more', async () => ({ image: await toFile(makePng({ width: 8, transparentAt: 1, padding: 4 * 1024 * 1024 }), 'a.png'), prompt: 'x' }), 400, 'image'],
      ['an opaque image without a mask', async () => ({ image: await toFile(opaque, 'a.png'), prompt: 'x' }), 422, 'image'],
      ['a mask of another size', async () => ({ image: await toFile(opaque, 'a.png'), mask: await toFile(makePng({ width: 32, alpha: 0 }), 'm.png'), prompt: 'x' }), 422, 'mask'],
      ['a mask that is not a PNG', async () => ({ image: await toFile(opaque, 'a.png'), mask: await toFile(Buffer.from('nope'), 'm.png'), prompt: 'x' }), 400, 'mask'],
      ['a prompt over 1000 characters', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'p'.repeat(1001) }), 400, 'prompt'],
      ['n of 11', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'x', n: 11 }), 400, 'n'],
      ['a dall-e-3 size for dall-e-2', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'x', size: '1792x1024' }), 422, 'size'],
      // as on /v1/images/generations: a size another model takes is 422, a value that is no size at all 400
      ['size auto for dall-e-2', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'x', model: 'dall-e-2', size: 'auto' }), 422, 'size'],
      ['a size that is not WxH', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'x', size: 'big' }), 400, 'size'],
      ['the newer family, which cannot edit', async () => ({ image: await toFile(transparent, 'a.png'), prompt: 'x', model: 'dall-e-3' }), 422, 'model'],
      ['no prompt', async () => ({ image: await toFile(transparent, 'a.png') }), 400, 'prompt'],
    ];
    it.each(cases)('refuses %s before anything goes upstream', async (_name, params, status, param) => {
      const before = calls('POST /v1/images/edits');
      const err = await client.images.edit((await params()) as any).catch((e) => e);
      expect(err.status).toBe(status);
      expect(err.error).toMatchObject({ param, code: status === 422 ? 'semantic_error' : 'missing_required_parameter' });
      expect(calls('POST /v1/images/edits')).toBe(before);
    });

    it('checks a field sent after the file before anything goes upstream (images are held until checked)', async () => {
      bareCounts = { started: 0, completed: 0 };
      const res = await sendForm(`${gwBare.url}/v1/images/edits`, [
        { name: 'prompt', value: 'x' },
        { name: 'image', filename: 'a.png', type: 'image/png', data: makePng({ width: 256, transparentAt: 9 }) },
        { name: 'n', value: '20' },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param: 'n', code: 'missing_required_parameter' });
      expect(bareCounts).toEqual({ started: 0, completed: 0 });
    });
  });

  describe('speech', () => {
    it('streams the audio: the first bytes arrive before the upstream has finished', async () => {
      let release!: () => void;
      speechGate = { wait: new Promise<void>((r) => (release = r)), release: () => release() };
      const response = await client.audio.speech.create({ model: 'tts-1', input: 'Hello', voice: 'alloy' });
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      const reader = response.body!.getReader();
      const first = await reader.read();
      // The upstream is still holding the rest back: these bytes were streamed, not buffered.
      expect(Buffer.from(first.value!).toString()).toBe('ID3-first-audio-bytes');
      speechGate.release();
      let rest = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += Buffer.from(value).toString();
      }
      expect(rest).toBe('-the-rest-of-the-audio');
    });

    it('refuses input over 4096 characters and a speed out of bounds', async () => {
      const e1 = await client.audio.speech.create({ model: 'tts-1', input: 'a'.repeat(4097), voice: 'alloy' }).catch((e) => e);
      expect(e1.status).toBe(400);
      expect(e1.error.param).toBe('input');
      const e2 = await client.audio.speech.create({ model: 'tts-1', input: 'a', voice: 'alloy', speed: 5 }).catch((e) => e);
      expect(e2.error.param).toBe('speed');
    });
  });

  describe('transcriptions and translations', () => {
    const audio = randomBytes(64 * 1024);

    it('uploads a 20 MB file byte for byte and answers json', async () => {
      const big = randomBytes(20 * 1024 * 1024);
      const answer = await client.audio.transcriptions.create({
        file: await toFile(big, 'meeting.mp3', { type: 'audio/mpeg' }),
        model: 'whisper-1',
        language: 'en',
        temperature: 0.2,
      });
      expect(answer).toEqual({ text: 'Hello from the gateway test.' });
      const sent = upstream.received('POST /v1/audio/transcriptions').at(-1)!;
      const form = await parseForm(sent);
      expect(sha(form.files[0]!.data)).toBe(sha(big));
      expect(form.fields).toMatchObject({ model: ['whisper-1'], language: ['en'], temperature: ['0.2'] });
      expect(Number(sent.headers['content-length'])).toBe(sent.body.length);
    });

    it('answers verbose_json with word timestamps', async () => {
      const answer = await client.audio.transcriptions.create({
        file: await toFile(audio, 'a.wav'),
        model: 'whisper-1',
        response_format: 'verbose_json',
        timestamp_granularities: ['word', 'segment'],
      });
      expect(answer).toEqual(fixtureJson('openai', 'transcription-verbose'));
      const form = await parseForm(upstream.received('POST /v1/audio/transcriptions').at(-1)!);
      expect(form.fields['timestamp_granularities[]']).toEqual(['word', 'segment']);
    });

    it.each([
      ['text', 'text/plain; charset=utf-8', 'Hello from the gateway test.\n'],
      ['srt', 'text/plain; charset=utf-8', fixtureBytes('openai', 'transcription.srt').toString()],
      ['vtt', 'text/vtt; charset=utf-8', fixtureBytes('openai', 'transcription.vtt').toString()],
    ] as const)('answers %s as text with the upstream content type', async (format, type, text) => {
      const { data, response } = await client.audio.transcriptions.create({ file: await toFile(audio, 'a.m4a'), model: 'whisper-1', response_format: format }).withResponse();
      expect(data).toBe(text);
      expect(response.headers.get('content-type')).toBe(type);
    });

    const refusals: Array<[string, () => Promise<Record<string, unknown>>, number, string]> = [
      [
        'timestamp_granularities without verbose_json',
        async () => ({ file: await toFile(audio, 'a.mp3'), model: 'whisper-1', timestamp_granularities: ['word'] }),
        422,
        'timestamp_granularities',
      ],
      ['a temperature above 1', async () => ({ file: await toFile(audio, 'a.mp3'), model: 'whisper-1', temperature: 1.5 }), 400, 'temperature'],
      ['an unknown response_format', async () => ({ file: await toFile(audio, 'a.mp3'), model: 'whisper-1', response_format: 'xml' }), 400, 'response_format'],
      ['a file that is not audio', async () => ({ file: await toFile(audio, 'notes.txt'), model: 'whisper-1' }), 400, 'file'],
      ['no model', async () => ({ file: await toFile(audio, 'a.mp3') }), 400, 'model'],
      ['a file over 25 MB', async () => ({ file: await toFile(randomBytes(25 * 1024 * 1024 + 1), 'a.mp3'), model: 'whisper-1' }), 400, 'file'],
    ];
    it.each(refusals)('refuses %s: no request reaches the upstream whole', async (_name, params, status, param) => {
      const before = calls('POST /v1/audio/transcriptions');
      const err = await client.audio.transcriptions.create((await params()) as any).catch((e) => e);
      expect(err.status).toBe(status);
      expect(err.error).toMatchObject({ param });
      expect(calls('POST /v1/audio/transcriptions')).toBe(before);
    });

    it('counts a chunked upload while it arrives and stops at 25 MB: no upstream request even starts', async () => {
      bareCounts = { started: 0, completed: 0 };
      const res = await sendForm(
        `${gwBare.url}/v1/audio/transcriptions`,
        [
          { name: 'model', value: 'whisper-1' },
          { name: 'file', filename: 'long.mp3', type: 'audio/mpeg', data: Buffer.alloc(25 * 1024 * 1024 + 100, 7) },
        ],
        { chunked: true },
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param: 'file', code: 'missing_required_parameter' });
      expect(bareCounts).toEqual({ started: 0, completed: 0 });
    });

    it('checks fields sent after the file (as the SDKs order them) before any byte goes upstream', async () => {
      bareCounts = { started: 0, completed: 0 };
      const res = await sendForm(`${gwBare.url}/v1/audio/transcriptions`, [
        { name: 'file', filename: 'a.mp3', type: 'audio/mpeg', data: randomBytes(2 * 1024 * 1024) },
        { name: 'model', value: 'whisper-1' },
        { name: 'temperature', value: '1.5' },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param: 'temperature', code: 'missing_required_parameter' });
      expect(bareCounts).toEqual({ started: 0, completed: 0 });
    });

    it('translates audio to English text', async () => {
      const answer = await client.audio.translations.create({ file: await toFile(audio, 'german.webm'), model: 'whisper-1' });
      expect(answer).toEqual({ text: 'Hello, this was translated.' });
      const e = await client.audio.translations.create({ file: await toFile(audio, 'a.mp3'), model: 'whisper-1', temperature: -1 }).catch((x) => x);
      expect(e.error.param).toBe('temperature');
    });

    it('transcribes through groq', async () => {
      const groq = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'gsk-test-groq-123456', defaultHeaders: { 'x-gateway-provider': 'groq' }, maxRetries: 0 });
      const answer = await groq.audio.transcriptions.create({ file: await toFile(audio, 'a.mp3'), model: 'whisper-large-v3' });
      expect(answer.text).toBe('Groq heard this.');
      const sent = upstream.received('POST /groq/openai/v1/audio/transcriptions').at(-1)!;
      expect(sha((await parseForm(sent)).files[0]!.data)).toBe(sha(audio));
    });
  });
});
