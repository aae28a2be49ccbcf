import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { request } from 'undici';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { pngChunk } from '../../helpers/png.js';
import { PIXEL_SCAN_LIMIT } from '../../../src/features/media/png.js';

/** An opaque RGBA PNG of side x side: tiny on disk, `side*(4*side+1)` bytes once inflated. */
function opaqueBomb(side: number): Buffer {
  const row = 4 * side + 1;
  const raw = Buffer.alloc(side * row, 255);
  for (let y = 0; y < side; y++) raw[y * row] = 0;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function edit(url: string, png: Buffer) {
  const boundary = 'png-bomb-boundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nx\r\n--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return request(`${url}/v1/images/edits`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-gateway-provider': 'openai', authorization: 'Bearer sk-png-bombs-0001' },
    body,
  });
}

/**
 * PNG checks never block the event loop: four concurrent images whose pixels inflate to about
 * a thousand times their size are examined while /health keeps answering (it answers before
 * any of the edits does), and each gets its answer.
 */
describe('decompression-bomb PNGs on image edits', () => {
  let gw: TestGateway;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await new FakeUpstream().on('POST /v1/images/edits', { json: { created: 1, data: [] } }).start();
    gw = await startGateway({ logging: { level: 'warn' }, providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('/health answers while four are examined, before any of them is answered', async () => {
    // The largest image whose pixels are all examined: fully opaque, so every row is read.
    const side = Math.floor(Math.sqrt(PIXEL_SCAN_LIMIT / 4)) - 8;
    const png = opaqueBomb(side);
    expect((side * (4 * side + 1)) / png.length).toBeGreaterThan(500);
    const order: string[] = [];
    const edits = [0, 1, 2, 3].map((i) =>
      edit(gw.url, png).then(async (res) => {
        order.push(`edit${i}`);
        return { status: res.statusCode, json: JSON.parse(await res.body.text()) };
      }),
    );
    // Once the four uploads are spooled (their bodies are in), their pixels are being examined.
    const spool = join(gw.dataDir, 'files', '.uploads');
    while (readdirSync(spool).length < 4 && order.length === 0) await new Promise((r) => setImmediate(r));
    const health = request(`${gw.url}/health`).then(async (res) => {
      order.push('health');
      await res.body.dump();
      return res.statusCode;
    });
    expect(await health).toBe(200);
    const answers = await Promise.all(edits);
    expect(order[0]).toBe('health');
    for (const a of answers) {
      expect(a.status).toBe(422);
      expect(a.json.error).toMatchObject({ code: 'semantic_error', param: 'image' });
    }
    expect(upstream.requests).toEqual([]);
  });

  it('an image claiming more pixels than its file can hold is refused from its header alone', async () => {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(60_000, 0);
    ihdr.writeUInt32BE(60_000, 4);
    ihdr[8] = 8;
    ihdr[9] = 6;
    const bomb = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', deflateSync(Buffer.alloc(4 << 20))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
    const res = await edit(gw.url, bomb);
    const json = JSON.parse(await res.body.text());
    expect(res.statusCode).toBe(400);
    expect(json.error).toMatchObject({ code: 'missing_required_parameter', param: 'image' });
    expect(json.error.message).toMatch(/60000x60000/);
  });
});
