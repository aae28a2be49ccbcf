import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PROVIDER_ROUTES } from '../../src/contract/routes.js';
import { makePng } from '../helpers/png.js';
import {
  CALLER_SECRETS,
  countStatus,
  credentialsOf,
  expectContractError,
  expectHealthy,
  expectNoSecret,
  fuzz,
  nastyString,
  RUNS,
  send,
  sendRaw,
  startFuzzWorld,
  summary,
  type FuzzWorld,
} from './harness.js';

type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer };

const png = makePng({ width: 16, transparentAt: 3 });
const opaque = makePng({ width: 16 });

const fieldPart = fc.record({
  name: fc.oneof(
    fc.constantFrom('model', 'prompt', 'purpose', 'temperature', 'language', 'response_format', 'n', 'size', 'timestamp_granularities[]', 'user'),
    fc.string({ maxLength: 10 }),
  ),
  value: fc.oneof(fc.constantFrom('whisper-1', 'dall-e-2', 'batch', 'fine-tune', '0.5', '1.5', '-1', 'json', 'verbose_json', 'srt', '2', '256x256', 'x'), nastyString),
});

const filePart = fc.record({
  name: fc.oneof(fc.constantFrom('file', 'image', 'mask', 'image[]'), fc.string({ maxLength: 8 })),
  filename: fc.oneof(fc.constantFrom('a.mp3', 'a.wav', 'in.jsonl', 'a.png', 'noext', '', '../../etc/passwd', 'a"b.png', 'ü.mp3'), fc.string({ maxLength: 12 })),
  type: fc.constantFrom('audio/mpeg', 'image/png', 'application/octet-stream', 'text/plain', ''),
  data: fc.oneof(
    fc.constant(png),
    fc.constant(opaque),
    fc.uint8Array({ maxLength: 2048 }).map((a) => Buffer.from(a)),
    fc.constant(Buffer.alloc(0)),
  ),
});

/** A well-formed form per route, which the fuzz shuffles and breaks. */
const VALID: Record<string, Part[]> = {
  '/v1/images/edits': [
    { name: 'prompt', value: 'add a hat' },
    { name: 'image', filename: 'a.png', type: 'image/png', data: png },
    { name: 'size', value: '256x256' },
  ],
  '/v1/audio/transcriptions': [
    { name: 'model', value: 'whisper-1' },
    { name: 'file', filename: 'a.mp3', type: 'audio/mpeg', data: Buffer.alloc(3000, 7) },
    { name: 'temperature', value: '0.2' },
  ],
  '/v1/audio/translations': [
    { name: 'model', value: 'whisper-1' },
    { name: 'file', filename: 'a.wav', type: 'audio/wav', data: Buffer.alloc(3000, 9) },
  ],
  '/v1/files': [
    { name: 'purpose', value: 'batch' },
    { name: 'file', filename: 'in.jsonl', type: 'application/jsonl', data: Buffer.from('{"custom_id":"1"}\n') },
  ],
};

function partsFor(path: string): fc.Arbitrary<Part[]> {
  const valid = VALID[path] ?? [];
  const mutated = fc
    .record({ order: fc.shuffledSubarray(valid, { minLength: Math.max(0, valid.length - 1) }), extra: fc.array(fc.oneof(fieldPart, filePart), { maxLength: 2 }), at: fc.nat() })
    .map(({ order, extra, at }) => {
      const out = [...order];
      for (const p of extra) out.splice(at % (out.length + 1), 0, p as Part);
      return out;
    });
  return fc.oneof(
    { weight: 2, arbitrary: fc.shuffledSubarray(valid, { minLength: valid.length }) },
    { weight: 3, arbitrary: mutated },
    { weight: 2, arbitrary: fc.array(fc.oneof(fieldPart, filePart), { minLength: 0, maxLength: 6 }) as fc.Arbitrary<Part[]> },
  );
}

/** A form: parts in any order, the boundary right or wrong, the body whole or cut anywhere. */
const formFor = (path: string) =>
  fc.record({
    parts: partsFor(path),
    boundary: fc.constantFrom('fuzz-b', 'fuzz-b', 'fuzz-b', 'x'.repeat(70), '"quoted"', ''),
    announce: fc.constantFrom('same', 'same', 'same', 'same', 'other', 'none', 'not-multipart'),
    cut: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }),
    tail: fc.constantFrom('--\r\n', '--\r\n', '--\r\n', '--', '', '\r\n--garbage'),
    key: fc.constantFrom(...CALLER_SECRETS.filter((s) => /^[\x20-\x7e]+$/.test(s))),
    provider: fc.constantFrom('openai', 'openai', 'groq', 'azure-openai', 'together-ai', 'nope'),
    batchMode: fc.boolean(),
    /** Half the forms are well-formed multipart (their parts still fuzzed), to reach the checks and the upstream. */
    wellFormed: fc.boolean(),
  });

function encode(parts: Part[], boundary: string, tail: string): Buffer {
  const b = boundary || 'b';
  const out: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) out.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    else
      out.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`), p.data, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${b}${tail}`));
  return Buffer.concat(out);
}

/**
 * The multipart routes (from the route table): forms with their parts in any order, awkward
 * names, values, file names and types, bodies cut anywhere and boundaries that lie. Each
 * answer is a success or the contract's error body; no secret; /health stays 200; and when
 * the cases are done no spooled part is left behind.
 */
describe('fuzz: multipart routes', { timeout: 600_000 }, () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(async () => {
    await world?.close();
    console.log(summary());
  });

  const routes = PROVIDER_ROUTES.filter((r) => r.body === 'multipart');
  it.each(routes.map((r) => [r.key, r] as const))('%s', async (key, route) => {
    await fuzz(key, formFor(route.path), RUNS(100), async (f) => {
      if (f.wellFormed) Object.assign(f, { boundary: 'fuzz-b', announce: 'same', tail: '--\r\n', cut: undefined });
      let body = encode(f.parts as Part[], f.boundary, f.tail);
      if (f.cut !== undefined) body = body.subarray(0, Math.floor(body.length * f.cut));
      const announced = f.announce === 'same' ? f.boundary || 'b' : f.announce === 'other' ? 'not-the-boundary' : '';
      const headers: Record<string, string> = {
        'content-type':
          f.announce === 'not-multipart'
            ? 'application/json'
            : `multipart/form-data${announced ? `; boundary=${/^[\w-]+$/.test(announced) ? announced : `"${announced.replace(/"/g, '')}"`}` : ''}`,
        'x-gateway-provider': f.provider,
        authorization: `Bearer ${f.key}`,
      };
      if (f.batchMode) headers['x-gateway-batch-mode'] = 'gateway';
      const what = `${key} ${JSON.stringify({ ...f, parts: (f.parts as Part[]).map((p) => ('value' in p ? p : { ...p, data: `${p.data.length} bytes` })) }).slice(0, 600)}`;
      const answer = await send(world, { method: 'POST', path: route.path, headers, body });
      countStatus(answer.status);
      if (answer.status === 0) throw new Error(`${what}: the connection was closed without an answer`);
      if (answer.status >= 400) expectContractError(answer, what);
      expectNoSecret(answer, credentialsOf(headers), what);
      await expectHealthy(world);
    });
  });

  it('bodies cut off mid-part on the socket itself (the request never completes) leave the gateway serving', async () => {
    const cases = fc.constantFrom(...routes.map((r) => r.path)).chain((path) => fc.tuple(fc.constant(path), formFor(path)));
    await fuzz('multipart raw cut-off', cases, RUNS(40), async ([path, f]) => {
      const body = encode(f.parts as Part[], 'fuzz-b', '--\r\n');
      const sent = body.subarray(0, Math.floor(body.length * (f.cut ?? 0.5)));
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=fuzz-b\r\nContent-Length: ${body.length + 10}\r\nx-gateway-provider: openai\r\nAuthorization: Bearer ${f.key}\r\n\r\n`;
      const answer = await sendRaw(world.port, Buffer.concat([Buffer.from(head), sent]));
      countStatus(answer.status);
      if (answer.status !== 0) expectContractError(answer, `${path} cut at ${sent.length}`);
      await expectHealthy(world);
    });
    const spool = join(world.gw.dataDir, 'files', '.uploads');
    const until = Date.now() + 5000;
    while (readdirSync(spool).length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(spool)).toEqual([]);
  });
});
