import { crc32 } from 'node:zlib';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * The one decoder of AWS's binary event stream (application/vnd.amazon.eventstream).
 * Each message: prelude (total length u32 BE, headers length u32 BE), prelude CRC32, headers,
 * payload, message CRC32 (of every byte before it). Both CRCs are checked; messages may span
 * or share network chunks.
 */
export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: Buffer;
}

const PRELUDE = 8;
const OVERHEAD = 16;
/** Larger than any message AWS sends (16 MB payload limit); a bigger length means corruption. */
const MAX_MESSAGE = 24 * 1024 * 1024;
/** The furthest instant from 1970 a Date holds (ms): a timestamp header past it is no time AWS sends. */
const MAX_TIME_MS = 8.64e15;

function corrupt(why: string): GatewayError {
  return new GatewayError('provider_error', `The upstream event stream is corrupt: ${why}.`, { retryable: false });
}

/** Header values are typed; every type is rendered as a string. */
function parseHeaders(buf: Buffer, start: number, end: number): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = start;
  const need = (n: number) => {
    if (at + n > end) throw corrupt('a header runs past the headers section');
  };
  while (at < end) {
    need(1);
    const nameLength = buf.readUInt8(at);
    at += 1;
    need(nameLength + 1);
    const name = buf.toString('utf8', at, at + nameLength);
    at += nameLength;
    const type = buf.readUInt8(at);
    at += 1;
    let value: string;
    switch (type) {
      case 0:
        value = 'true';
        break;
      case 1:
        value = 'false';
        break;
      case 2:
        need(1);
        value = String(buf.readInt8(at));
        at += 1;
        break;
      case 3:
        need(2);
        value = String(buf.readInt16BE(at));
        at += 2;
        break;
      case 4:
        need(4);
        value = String(buf.readInt32BE(at));
        at += 4;
        break;
      case 5:
        need(8);
        value = String(buf.readBigInt64BE(at));
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = buf.readUInt16BE(at);
        at += 2;
        need(length);
        value = type === 7 ? buf.toString('utf8', at, at + length) : buf.toString('base64', at, at + length);
        at += length;
        break;
      }
      case 8: {
        need(8);
        const ms = Number(buf.readBigInt64BE(at));
        if (!(Math.abs(ms) <= MAX_TIME_MS)) throw corrupt(`header "${name}" holds a timestamp out of range (${ms} ms)`);
        value = new Date(ms).toISOString();
        at += 8;
        break;
      }
      case 9: {
        need(16);
        const hex = buf.toString('hex', at, at + 16);
        value = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
        at += 16;
        break;
      }
      default:
        throw corrupt(`header "${name}" has unknown value type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}

/** Decodes one whole message held in `buf` (exactly its bytes). */
export function decodeMessage(buf: Buffer): EventStreamMessage {
  const total = buf.readUInt32BE(0);
  const headersLength = buf.readUInt32BE(4);
  if (crc32(buf.subarray(0, PRELUDE)) !== buf.readUInt32BE(PRELUDE)) throw corrupt('prelude checksum mismatch');
  if (total !== buf.length) throw corrupt('message length mismatch');
  if (crc32(buf.subarray(0, total - 4)) !== buf.readUInt32BE(total - 4)) throw corrupt('message checksum mismatch');
  const headersStart = PRELUDE + 4;
  const headersEnd = headersStart + headersLength;
  return { headers: parseHeaders(buf, headersStart, headersEnd), payload: buf.subarray(headersEnd, total - 4) };
}

/** Splits a byte stream into event-stream messages as bytes arrive. */
export async function* parseAwsEventStream(source: AsyncIterable<Buffer | string>): AsyncGenerator<EventStreamMessage> {
  let pending: Buffer[] = [];
  let size = 0;
  const take = (n: number): Buffer => {
    const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    pending = rest.length ? [rest] : [];
    size = rest.length;
    return out;
  };
  const peek = (n: number): Buffer => {
    if (pending[0]!.length < n) {
      const all = Buffer.concat(pending, size);
      pending = [all];
    }
    return pending[0]!.subarray(0, n);
  };
  let expected = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'binary') : chunk;
    if (bytes.length === 0) continue;
    pending.push(bytes);
    size += bytes.length;
    for (;;) {
      if (expected === 0) {
        if (size < PRELUDE + 4) break;
        const prelude = peek(PRELUDE + 4);
        if (crc32(prelude.subarray(0, PRELUDE)) !== prelude.readUInt32BE(PRELUDE)) throw corrupt('prelude checksum mismatch');
        const total = prelude.readUInt32BE(0);
        const headersLength = prelude.readUInt32BE(4);
        if (total < OVERHEAD || total > MAX_MESSAGE || headersLength > total - OVERHEAD) throw corrupt(`impossible lengths (total ${total}, headers ${headersLength})`);
        expected = total;
      }
      if (size < expected) break;
      const message = take(expected);
      expected = 0;
      yield decodeMessage(message);
    }
  }
  if (size > 0) throw corrupt(`the stream ended inside a message (${size} bytes left over)`);
}
