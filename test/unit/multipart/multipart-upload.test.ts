import { describe, expect, it } from 'vitest';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';
import { Readable } from 'node:stream';
import { MultipartUpload, type UploadRules } from '../../../src/multipart/multipart-upload.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const BOUNDARY = 'unit-boundary-42';

function form(parts: Array<[string, string] | [string, string, Buffer]>): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    if (p.length === 2) out.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p[0]}"\r\n\r\n${p[1]}\r\n`));
    else out.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p[0]}"; filename="${p[1]}"\r\nContent-Type: application/octet-stream\r\n\r\n`), p[2], Buffer.from('\r\n'));
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

describe('MultipartUpload', () => {
  const data = randomBytes(300_000);

  it('passes the caller bytes through unchanged (raw sink)', async () => {
    const body = form([['purpose', 'batch'], ['file', 'a.jsonl', data]]);
    const upload = new MultipartUpload(requestOf(body), rules());
    await upload.ready;
    const out = await drain(upload.stream);
    await upload.done;
    expect(out.equals(body)).toBe(true);
    expect(upload.fields).toEqual({ purpose: 'batch' });
    expect(upload.files[0]).toMatchObject({ field: 'file', filename: 'a.jsonl', bytes: data.length });
  });

  it('rebuilds the form with renamed fields; a field after the file lands after it', async () => {
    const body = form([['file', 'train.jsonl', data], ['purpose', 'batch']]);
    const upload = new MultipartUpload(requestOf(body), rules());
    await upload.ready;
    const rebuilt = upload.rebuild({
      field: (n, v) => [[n, v === 'batch' ? 'batch-api' : v]],
      file: (part) => ({ field: 'file', before: [['file_name', part.filename]] }),
    });
    const out = await drain(rebuilt.body);
    const parsed = await parse(out, rebuilt.contentType);
    expect(parsed.fields).toEqual([['file_name', 'train.jsonl'], ['purpose', 'batch-api']]);
    expect(parsed.files[0]![1].equals(data)).toBe(true);
  });

  it('writes the file part to disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mp-'));
    try {
      const upload = new MultipartUpload(requestOf(form([['purpose', 'batch'], ['file', 'x.jsonl', data]])), rules());
      await upload.ready;
      upload.toDisk('file', join(dir, 'f'));
      await upload.done;
      expect(readFileSync(join(dir, 'f')).equals(data)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a check failing after the file began destroys the sink: the last chunk never goes', async () => {
    const body = form([['file', 'a.bin', data], ['n', '99']]);
    const upload = new MultipartUpload(
      requestOf(body),
      rules({
        finish(fields) {
          if (fields.n === '99') throw new GatewayError('missing_required_parameter', 'n is out of bounds', { param: 'n' });
        },
      }),
    );
    await upload.ready;
    const received: Buffer[] = [];
    const err = await new Promise<Error>((resolve) => {
      upload.stream.on('data', (c: Buffer) => received.push(c));
      upload.stream.on('error', resolve);
    });
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).param).toBe('n');
    expect(Buffer.concat(received).length).toBeLessThan(body.length);
    await expect(upload.done).rejects.toThrow('n is out of bounds');
  });

  it('stops at the file limit', async () => {
    const upload = new MultipartUpload(requestOf(form([['file', 'a.bin', data]])), rules({ fileLimit: () => 100_000 }));
    await upload.ready;
    await expect(drain(upload.stream)).rejects.toMatchObject({ param: 'file' });
    await expect(upload.done).rejects.toMatchObject({ param: 'file' });
  });

  it('refuses a body that is not multipart', async () => {
    const req = new IncomingMessage(new Socket());
    req.headers = { 'content-type': 'application/json' };
    req.push(null);
    const upload = new MultipartUpload(req, rules());
    await expect(upload.ready).rejects.toMatchObject({ param: 'content-type' });
  });
});
