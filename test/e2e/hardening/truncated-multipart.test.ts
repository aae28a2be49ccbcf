import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildGateway, freePort, spawnGateway, waitForHealth, type GatewayProcess } from '../../helpers/built-gateway.js';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { makePng } from '../../helpers/png.js';

const BOUNDARY = 'cut-boundary-7f3a';
const KEY = 'sk-truncated-multipart-0001';

/** A multipart body: the text fields first, then one file part. */
function form(fields: Record<string, string>, file: { name: string; filename: string; type: string; data: Buffer }): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.data, Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

interface RawAnswer {
  /** The status line's code, or undefined when the connection closed without an answer. */
  status?: number;
  body: string;
}

/**
 * Sends raw bytes on a fresh socket: the head with `declaredLength`, then `body`; `finish`
 * says what the client does next: wait for the answer, half-close its side, or drop the
 * connection at once.
 */
function sendRaw(port: number, path: string, body: Buffer, declaredLength: number, finish: 'wait' | 'end' | 'destroy'): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : undefined, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declaredLength}\r\n` +
        `x-gateway-provider: openai\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body, () => {
      if (finish === 'destroy') setTimeout(() => socket.destroy(), 30);
      else if (finish === 'end') socket.end();
    });
    setTimeout(() => socket.destroy(), 10_000);
  });
}

const ROUTES: Array<{ path: string; body: () => Buffer }> = [
  { path: '/v1/audio/transcriptions', body: () => form({ model: 'whisper-1' }, { name: 'file', filename: 'a.mp3', type: 'audio/mpeg', data: randomBytes(256 * 1024) }) },
  { path: '/v1/audio/translations', body: () => form({ model: 'whisper-1' }, { name: 'file', filename: 'a.wav', type: 'audio/wav', data: randomBytes(256 * 1024) }) },
  { path: '/v1/files', body: () => form({ purpose: 'batch' }, { name: 'file', filename: 'in.jsonl', type: 'application/jsonl', data: randomBytes(256 * 1024) }) },
  {
    path: '/v1/images/edits',
    body: () => form({ prompt: 'x' }, { name: 'image', filename: 'a.png', type: 'image/png', data: makePng({ width: 256, transparentAt: 3, padding: 200 * 1024 }) }),
  },
];

/**
 * A multipart body cut off inside a file part, on every upload route of the built gateway
 * process: the answer is a 400 in the contract's shape (or the connection closes), the process
 * keeps running, /health still answers, nothing reached the upstream, and no spooled part stays.
 */
describe('multipart bodies cut off inside a file part', { timeout: 120_000 }, () => {
  let dir: string;
  let proc: GatewayProcess;
  let port: number;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    buildGateway();
    dir = mkdtempSync(join(tmpdir(), 'gw-cut-'));
    upstream = await new FakeUpstream().start();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(config, `server:\n  host: 127.0.0.1\nlogging:\n  level: warn\nproviders:\n  openai:\n    baseUrl: ${upstream.url}/v1\n`);
    port = await freePort();
    proc = spawnGateway(['--config', config], { env: { GATEWAY_PORT: String(port), GATEWAY_DATA_DIR: join(dir, 'data') } });
    await waitForHealth(`http://127.0.0.1:${port}`, proc);
  }, 240_000);
  afterAll(async () => {
    proc?.kill();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const alive = async () => {
    expect(proc.child.exitCode, proc.stderr()).toBeNull();
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  };

  const expectRefusedOrClosed = (answer: RawAnswer) => {
    if (answer.status === undefined) return;
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ status: 'failure', error: { type: 'invalid_request_error', code: 'missing_required_parameter' } });
    expect(body.message).toBe(body.error.message);
  };

  for (const route of ROUTES) {
    it(`${route.path}: a whole request whose form ends inside the file part is a 400`, async () => {
      const full = route.body();
      // The HTTP request is complete (its Content-Length is what was sent), the form is not.
      const cut = full.subarray(0, Math.floor(full.length * 0.6));
      const answer = await sendRaw(port, route.path, cut, cut.length, 'wait');
      expect(answer.status).toBe(400);
      expectRefusedOrClosed(answer);
      await alive();
    });

    it(`${route.path}: a connection that ends before its Content-Length is answered 400 or closed`, async () => {
      const full = route.body();
      const cut = full.subarray(0, Math.floor(full.length * 0.5));
      expectRefusedOrClosed(await sendRaw(port, route.path, cut, full.length, 'end'));
      await alive();
    });

    it(`${route.path}: a form cut right after the file part's headers is a 400`, async () => {
      const full = route.body();
      const head = full.indexOf('\r\n\r\n', full.indexOf('filename=')) + 4;
      const cut = full.subarray(0, head);
      const answer = await sendRaw(port, route.path, cut, cut.length, 'wait');
      expect(answer.status).toBe(400);
      expectRefusedOrClosed(answer);
      await alive();
    });

    it(`${route.path}: a client that drops the connection mid-file leaves the gateway serving`, async () => {
      const full = route.body();
      expectRefusedOrClosed(await sendRaw(port, route.path, full.subarray(0, 100_000), full.length, 'destroy'));
      await alive();
    });
  }

  it('sent nothing upstream and left no spooled part behind', async () => {
    expect(upstream.requests).toEqual([]);
    const spool = join(dir, 'data', 'files', '.uploads');
    const deadline = Date.now() + 5000;
    while (readdirSync(spool).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(spool)).toEqual([]);
    await alive();
  });
});
