import { describe, expect, it } from 'vitest';
import { parseAwsEventStream } from '../../../src/contract/aws-eventstream/decoder.js';
import { frameEvents } from '../../../src/contract/framing.js';
import { GatewayError } from '../../../src/contract/errors/gateway-error.js';
import { encodeEvent, encodeMessage, slices } from '../../helpers/aws-eventstream-encoder.js';

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
