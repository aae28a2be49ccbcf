import { afterAll, describe, expect, it, vi } from 'vitest';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';
import { Readable } from 'node:stream';
import { MultipartUpload, type UploadRules } from '../../../../../src/kernel/http/multipart/multipart-upload.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

const BOUNDARY = 'unit-boundary-42';

function form(parts: Array<[string, string] | [string, string, Buffer]>): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    if (p.length === 2) out.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p[0]}"\r\n\r\n${p[1]}\r\n`));
    else
      out.push(
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p[0]}"; filename="${p[1]}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        p[2],
        Buffer.from('\r\n'),
      );
  }
  out.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(out);
}

/** A request that emits `body` in 16 KB chunks. */
function requestOf(body: Buffer): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) };
  for (let i = 0; i < body.length; i += 16384) req.push(body.subarray(i, i + 16384));
  req.complete = true;
  req.push(null);
  return req;
}

const rules = (extra: Partial<UploadRules> = {}): UploadRules => ({ fileLimit: () => 1024 * 1024, finish: () => undefined, ...extra });

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function parse(body: Buffer, contentType: string): Promise<{ fields: Array<[string, string]>; files: Array<[string, Buffer]> }> {
  return new Promise((resolve) => {
    const fields: Array<[string, string]> = [];
    const files: Array<[string, Buffer]> = [];
    const bb = busboy({ headers: { 'content-type': contentType } });
    bb.on('field', (n, v) => fields.push([n, v]));
    bb.on('file', (n, s) => {
      const c: Buffer[] = [];
      s.on('data', (d: Buffer) => c.push(d));
      s.on('end', () => files.push([n, Buffer.concat(c)]));
    });
    bb.on('close', () => resolve({ fields, files }));
    Readable.from([body]).pipe(bb);
  });
}

const spoolDir = mkdtempSync(join(tmpdir(), 'mp-spool-'));
const spooled = () => readdirSync(spoolDir);

describe('MultipartUpload', () => {
  const data = randomBytes(300_000);
  afterAll(() => rmSync(spoolDir, { recursive: true, force: true }));

  it('sends the form as it came (every part, in order) from the spooled parts, with its exact length', async () => {
    const body = form([
      ['purpose', 'batch'],
      ['file', 'a.jsonl', data],
      ['after', 'x'],
    ]);
    const upload = new MultipartUpload(requestOf(body), rules(), { spoolDir });
    await upload.ready;
    expect(upload.fields).toEqual({ purpose: 'batch', after: 'x' });
    expect(upload.files[0]).toMatchObject({ field: 'file', filename: 'a.jsonl', bytes: data.length });
    const sent = upload.form();
    const out = await drain(sent.body);
    expect(out.length).toBe(sent.contentLength);
    const parsed = await parse(out, sent.contentType);
    expect(parsed.fields).toEqual([
      ['purpose', 'batch'],
      ['after', 'x'],
    ]);
    expect(parsed.files[0]![1].equals(data)).toBe(true);
    // A second attempt (retry, fallback) gets the same form again.
    const again = await drain(upload.form().body);
    expect(again.length).toBe(out.length);
    upload.dispose();
    await waitFor(() => spooled().length === 0);
  });

  it('rebuilds the form with renamed fields; a field after the file stays after it', async () => {
    const body = form([
      ['file', 'train.jsonl', data],
      ['purpose', 'batch'],
    ]);
    const upload = new MultipartUpload(requestOf(body), rules(), { spoolDir });
    await upload.ready;
    const rebuilt = upload.rebuild({
      field: (n, v) => [[n, v === 'batch' ? 'batch-api' : v]],
      file: (part) => ({ field: 'file', before: [['file_name', part.filename]] }),
    });
    const out = await drain(rebuilt.body);
    expect(out.length).toBe(rebuilt.contentLength);
    const parsed = await parse(out, rebuilt.contentType);
    expect(parsed.fields).toEqual([
      ['file_name', 'train.jsonl'],
      ['purpose', 'batch-api'],
    ]);
    expect(parsed.files[0]![1].equals(data)).toBe(true);
    upload.dispose();
  });

  it('moves the file part to disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-'));
    try {
      const upload = new MultipartUpload(
        requestOf(
          form([
            ['purpose', 'batch'],
            ['file', 'x.jsonl', data],
          ]),
        ),
        rules(),
        { spoolDir },
      );
      await upload.ready;
      await upload.toDisk('file', join(dir, 'f'));
      expect(readFileSync(join(dir, 'f')).equals(data)).toBe(true);
      upload.dispose();
      await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(join(dir, 'f')).length).toBe(data.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks a field sent after the file before the form is ready: nothing can be sent', async () => {
    const body = form([
      ['file', 'a.bin', data],
      ['n', '99'],
    ]);
    const finish = vi.fn((fields: Record<string, unknown>) => {
      if (fields.n === '99') throw new GatewayError('missing_required_parameter', 'n is out of bounds', { param: 'n' });
    });
    const upload = new MultipartUpload(requestOf(body), rules({ finish }), { spoolDir });
    await expect(upload.ready).rejects.toMatchObject({ param: 'n' });
    expect(finish).toHaveBeenCalledTimes(1);
    expect(() => upload.form()).toThrow(/not checked/);
    await waitFor(() => spooled().length === 0);
  });

  it('waits for an asynchronous final check', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const upload = new MultipartUpload(requestOf(form([['file', 'a.bin', data]])), rules({ finish: () => gate }), { spoolDir });
    let ready = false;
    void upload.ready.then(() => (ready = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(ready).toBe(false);
    release();
    await upload.ready;
    upload.dispose();
  });

  it('stops at the file limit and removes what it spooled', async () => {
    const upload = new MultipartUpload(requestOf(form([['file', 'a.bin', data]])), rules({ fileLimit: () => 100_000 }), { spoolDir });
    await expect(upload.ready).rejects.toMatchObject({ param: 'file' });
    await waitFor(() => spooled().length === 0);
  });

  it('a body cut off inside a file part is a 400, and the spooled part goes', async () => {
    const body = form([
      ['model', 'whisper-1'],
      ['file', 'a.mp3', data],
    ]);
    const cut = body.subarray(0, 150_000);
    const upload = new MultipartUpload(requestOf(cut), rules(), { spoolDir });
    await expect(upload.ready).rejects.toMatchObject({ status: 400, param: expect.any(String) });
    await waitFor(() => spooled().length === 0);
  });

  it('a caller going away mid-upload is a cut-off upload', async () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const upload = new MultipartUpload(req, rules(), { spoolDir });
    req.push(form([['file', 'a.bin', data]]).subarray(0, 100_000));
    await new Promise((r) => setTimeout(r, 20));
    req.destroy();
    await expect(upload.ready).rejects.toMatchObject({ message: 'The upload was cut off.' });
    await waitFor(() => spooled().length === 0);
  });

  it('refuses a body that is not multipart', async () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { 'content-type': 'application/json' };
    req.push(null);
    const upload = new MultipartUpload(req, rules(), { spoolDir });
    await expect(upload.ready).rejects.toMatchObject({ param: 'content-type' });
  });
});

async function waitFor(test: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
