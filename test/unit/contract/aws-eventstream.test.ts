import { describe, expect, it } from 'vitest';
import { parseAwsEventStream } from '../../../src/contract/aws-eventstream/decoder.js';
import { frameEvents } from '../../../src/contract/framing.js';
import { GatewayError } from '../../../src/contract/errors/gateway-error.js';
import fc from 'fast-check';
import { encodeEvent, encodeMessage, frameMessage, slices } from '../../helpers/aws-eventstream-encoder.js';
import { splitAt } from '../../helpers/byte-pieces.js';

async function* from(chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
}

async function decodeAll(chunks: Buffer[]) {
  const out: Array<{ headers: Record<string, string>; payload: string }> = [];
  for await (const m of parseAwsEventStream(from(chunks))) out.push({ headers: m.headers, payload: m.payload.toString('utf8') });
  return out;
}

// Published example messages of the encoding: payload {"foo": "bar"}, without and with a
// content-type header (total length, headers length, prelude CRC, ..., message CRC).
const EXAMPLE_NO_HEADERS = Buffer.from([0, 0, 0, 30, 0, 0, 0, 0, 186, 242, 246, 138, ...Buffer.from('{"foo": "bar"}'), 174, 114, 88, 228]);
const EXAMPLE_WITH_HEADER = Buffer.from([
  0,
  0,
  0,
  62,
  0,
  0,
  0,
  32,
  64,
  93,
  249,
  70,
  12,
  ...Buffer.from('content-type'),
  7,
  0,
  16,
  ...Buffer.from('application/json'),
  ...Buffer.from('{"foo": "bar"}'),
  111,
  162,
  191,
  59,
]);

describe('aws event-stream decoder', () => {
  it('decodes the published example messages', async () => {
    expect(await decodeAll([EXAMPLE_NO_HEADERS])).toEqual([{ headers: {}, payload: '{"foo": "bar"}' }]);
    expect(await decodeAll([EXAMPLE_WITH_HEADER])).toEqual([{ headers: { 'content-type': 'application/json' }, payload: '{"foo": "bar"}' }]);
  });

  it('the test encoder writes the same bytes as the published examples (so its CRCs are right)', () => {
    expect(encodeMessage({}, '{"foo": "bar"}')).toEqual(EXAMPLE_NO_HEADERS);
    expect(encodeMessage({ 'content-type': 'application/json' }, '{"foo": "bar"}')).toEqual(EXAMPLE_WITH_HEADER);
  });

  it('decodes messages split across chunk boundaries at every size, and several messages in one chunk', async () => {
    const events = [
      encodeEvent('messageStart', { role: 'assistant' }),
      encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Grüße, 世界' } }),
      encodeEvent('messageStop', { stopReason: 'end_turn' }),
    ];
    const bytes = Buffer.concat(events);
    const expected = [
      { headers: { ':event-type': 'messageStart', ':content-type': 'application/json', ':message-type': 'event' }, payload: '{"role":"assistant"}' },
      {
        headers: { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
        payload: '{"contentBlockIndex":0,"delta":{"text":"Grüße, 世界"}}',
      },
      { headers: { ':event-type': 'messageStop', ':content-type': 'application/json', ':message-type': 'event' }, payload: '{"stopReason":"end_turn"}' },
    ];
    for (const size of [1, 2, 3, 5, 7, 11, 12, 13, 64, bytes.length]) {
      expect(await decodeAll(slices(bytes, size))).toEqual(expected);
    }
  });

  it('renders typed header values as strings', async () => {
    const bytes = encodeMessage(
      {
        flag: { type: 'bool', value: true },
        off: { type: 'bool', value: false },
        count: { type: 'int32', value: -42 },
        blob: { type: 'bytes', value: Buffer.from([1, 2, 3]) },
        when: { type: 'timestamp', value: new Date('2024-05-01T12:00:00.000Z') },
      },
      '',
    );
    const [message] = await decodeAll([bytes]);
    expect(message!.headers).toEqual({ flag: 'true', off: 'false', count: '-42', blob: 'AQID', when: '2024-05-01T12:00:00.000Z' });
    expect(message!.payload).toBe('');
  });

  it('rejects a message whose payload was altered (message CRC) with a provider_error', async () => {
    const bytes = Buffer.from(encodeEvent('contentBlockDelta', { delta: { text: 'hello' } }));
    bytes[bytes.length - 10] ^= 0x01;
    const err = await decodeAll(slices(bytes, 5)).catch((e) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.code).toBe('provider_error');
    expect(err.message).toMatch(/message checksum/);
  });

  it('rejects a damaged prelude before waiting for the announced length', async () => {
    const bytes = Buffer.from(encodeEvent('messageStart', { role: 'assistant' }));
    bytes[2] = 0x7f; // total length now huge; the prelude CRC no longer matches
    const err = await decodeAll([bytes.subarray(0, 12)]).catch((e) => e);
    expect(err.code).toBe('provider_error');
    expect(err.message).toMatch(/prelude checksum/);
  });

  it('reports a stream cut inside a message', async () => {
    const bytes = encodeEvent('messageStart', { role: 'assistant' });
    const err = await decodeAll([bytes.subarray(0, bytes.length - 3)]).catch((e) => e);
    expect(err.code).toBe('provider_error');
    expect(err.message).toMatch(/ended inside a message/);
  });

  it('is the framing registered as aws-eventstream', async () => {
    const out: unknown[] = [];
    for await (const event of frameEvents('aws-eventstream', from(slices(encodeEvent('metadata', { usage: { inputTokens: 1 } }), 4)))) out.push(event);
    expect(out).toHaveLength(1);
    expect((out[0] as any).headers[':event-type']).toBe('metadata');
    expect(JSON.parse((out[0] as any).payload.toString())).toEqual({ usage: { inputTokens: 1 } });
  });
});

/** What decoding gave: the messages (payloads as hex), or the error it threw. */
async function outcome(chunks: Buffer[]): Promise<{ messages: Array<{ headers: Record<string, string>; payload: string }> } | { error: unknown }> {
  const messages: Array<{ headers: Record<string, string>; payload: string }> = [];
  try {
    for await (const m of parseAwsEventStream(from(chunks))) messages.push({ headers: m.headers, payload: m.payload.toString('hex') });
  } catch (error) {
    return { error };
  }
  return { messages };
}

/** Bytes cut at the given points (duplicates and points past the end allowed: empty pieces are sent too). */
function cutAt(bytes: Buffer, points: number[]): Buffer[] {
  return splitAt(
    bytes,
    points.map((p) => p % (bytes.length + 1)).sort((a, b) => a - b),
  );
}

/** A decoding that fails does so with the decoder's own error: a provider_error naming the corruption. */
function expectCorruptOrDecoded(result: Awaited<ReturnType<typeof outcome>>): void {
  if (!('error' in result)) return;
  expect(result.error).toBeInstanceOf(GatewayError);
  expect((result.error as GatewayError).code).toBe('provider_error');
  expect((result.error as GatewayError).message).toMatch(/^The upstream event stream is corrupt: /);
}

const int = (bytes: number, write: (b: Buffer) => void): Buffer => {
  const b = Buffer.alloc(bytes);
  write(b);
  return b;
};

/** A header name (at most 255 bytes of UTF-8) and the name the decoder reads back. */
const headerName = fc
  .string({ unit: 'binary', maxLength: 24 })
  .map((name) => Buffer.from(name, 'utf8'))
  .filter((bytes) => bytes.length <= 255);

/** A typed header value as the wire carries it (type byte and value), and the string the decoder renders it as. */
const headerValue: fc.Arbitrary<{ wire: Buffer; text: string }> = fc.oneof(
  fc.boolean().map((v) => ({ wire: Buffer.from([v ? 0 : 1]), text: String(v) })),
  fc.integer({ min: -128, max: 127 }).map((v) => ({ wire: Buffer.concat([Buffer.from([2]), int(1, (b) => b.writeInt8(v))]), text: String(v) })),
  fc.integer({ min: -32768, max: 32767 }).map((v) => ({ wire: Buffer.concat([Buffer.from([3]), int(2, (b) => b.writeInt16BE(v))]), text: String(v) })),
  fc.integer().map((v) => ({ wire: Buffer.concat([Buffer.from([4]), int(4, (b) => b.writeInt32BE(v))]), text: String(v) })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => ({ wire: Buffer.concat([Buffer.from([5]), int(8, (b) => b.writeBigInt64BE(v))]), text: String(v) })),
  fc.uint8Array({ maxLength: 40 }).map((v) => ({
    wire: Buffer.concat([Buffer.from([6]), int(2, (b) => b.writeUInt16BE(v.length)), Buffer.from(v)]),
    text: Buffer.from(v).toString('base64'),
  })),
  fc.string({ unit: 'binary', maxLength: 40 }).map((v) => {
    const bytes = Buffer.from(v, 'utf8');
    return { wire: Buffer.concat([Buffer.from([7]), int(2, (b) => b.writeUInt16BE(bytes.length)), bytes]), text: bytes.toString('utf8') };
  }),
  // Every instant a Date holds (±8.64e15 ms around 1970), as AWS's int64 of milliseconds.
  fc
    .integer({ min: -8.64e15, max: 8.64e15 })
    .map((ms) => ({ wire: Buffer.concat([Buffer.from([8]), int(8, (b) => b.writeBigInt64BE(BigInt(ms)))]), text: new Date(ms).toISOString() })),
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map((v) => {
    const hex = Buffer.from(v).toString('hex');
    return { wire: Buffer.concat([Buffer.from([9]), Buffer.from(v)]), text: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
  }),
);

const header = fc
  .tuple(headerName, headerValue)
  .map(([name, value]) => ({ wire: Buffer.concat([Buffer.from([name.length]), name, value.wire]), name: name.toString('utf8'), text: value.text }));

describe('aws event-stream decoder, fuzzed', () => {
  it('decodes any sequence of messages, with every header type, however the bytes are cut', async () => {
    const message = fc.record({ headers: fc.array(header, { maxLength: 6 }), payload: fc.uint8Array({ maxLength: 120 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 }), async (messages, points) => {
        const bytes = Buffer.concat(messages.map((m) => frameMessage(Buffer.concat(m.headers.map((h) => h.wire)), m.payload)));
        const expected = messages.map((m) => {
          // A name sent twice keeps its last value, as the decoder's object does.
          const headers: Record<string, string> = {};
          for (const h of m.headers) headers[h.name] = h.text;
          return { headers, payload: Buffer.from(m.payload).toString('hex') };
        });
        expect(await outcome(cutAt(bytes, points))).toEqual({ messages: expected });
      }),
      { numRuns: 300 },
    );
  });

  it('answers a well-framed message whose headers hold anything with a message or its corrupt-stream error, nothing else', async () => {
    // Any type byte (known or not) followed by any bytes, inside a message whose lengths and CRCs are right.
    const anyHeader = fc
      .tuple(headerName, fc.integer({ min: 0, max: 12 }), fc.uint8Array({ maxLength: 20 }))
      .map(([name, type, rest]) => Buffer.concat([Buffer.from([name.length]), name, Buffer.from([type]), Buffer.from(rest)]));
    await fc.assert(
      fc.asyncProperty(fc.array(anyHeader, { maxLength: 4 }), fc.uint8Array({ maxLength: 32 }), fc.integer({ min: 1, max: 16 }), async (headers, payload, size) => {
        expectCorruptOrDecoded(await outcome(slices(frameMessage(Buffer.concat(headers), payload), size)));
      }),
      { numRuns: 1000 },
    );
  });

  it('answers arbitrary bytes, and a valid stream with a byte changed or cut short, with messages or its corrupt-stream error', async () => {
    const valid = Buffer.concat([encodeEvent('messageStart', { role: 'assistant' }), encodeEvent('contentBlockDelta', { delta: { text: 'hi' } })]);
    const damaged = fc.oneof(
      fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b)),
      fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, flip]) => {
        const copy = Buffer.from(valid);
        copy[at]! ^= flip;
        return copy;
      }),
      fc.nat({ max: valid.length - 1 }).map((end) => valid.subarray(0, end)),
    );
    await fc.assert(
      fc.asyncProperty(damaged, fc.array(fc.nat(), { maxLength: 6 }), async (bytes, points) => {
        expectCorruptOrDecoded(await outcome(cutAt(bytes, points)));
      }),
      { numRuns: 1000 },
    );
  });
});
