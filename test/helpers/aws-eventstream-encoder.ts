/**
 * A small encoder of AWS's binary event stream, written for tests from the published layout
 * (prelude: total length, headers length; prelude CRC; headers; payload; message CRC). It has
 * its own CRC-32 table so the gateway's decoder is checked against independent bytes.
 */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32Of(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export type HeaderValue = string | { type: 'bool'; value: boolean } | { type: 'int32'; value: number } | { type: 'bytes'; value: Buffer } | { type: 'timestamp'; value: Date };

function encodeHeaders(headers: Record<string, HeaderValue>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name, 'utf8');
    parts.push(Buffer.from([nameBytes.length]), nameBytes);
    if (typeof value === 'string') {
      const bytes = Buffer.from(value, 'utf8');
      const head = Buffer.alloc(3);
      head.writeUInt8(7, 0);
      head.writeUInt16BE(bytes.length, 1);
      parts.push(head, bytes);
    } else if (value.type === 'bool') {
      parts.push(Buffer.from([value.value ? 0 : 1]));
    } else if (value.type === 'int32') {
      const b = Buffer.alloc(5);
      b.writeUInt8(4, 0);
      b.writeInt32BE(value.value, 1);
      parts.push(b);
    } else if (value.type === 'bytes') {
      const head = Buffer.alloc(3);
      head.writeUInt8(6, 0);
      head.writeUInt16BE(value.value.length, 1);
      parts.push(head, value.value);
    } else {
      const b = Buffer.alloc(9);
      b.writeUInt8(8, 0);
      b.writeBigInt64BE(BigInt(value.value.getTime()), 1);
      parts.push(b);
    }
  }
  return Buffer.concat(parts);
}

/** One event-stream message. */
export function encodeMessage(headers: Record<string, HeaderValue>, payload: Buffer | string): Buffer {
  return frameMessage(encodeHeaders(headers), typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload);
}

/** One message around a headers section given as bytes (whatever they hold), with both CRCs right. */
export function frameMessage(headerBytes: Uint8Array, body: Uint8Array): Buffer {
  const total = 12 + headerBytes.length + body.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headerBytes.length, 4);
  out.writeUInt32BE(crc32Of(out.subarray(0, 8)), 8);
  out.set(headerBytes, 12);
  out.set(body, 12 + headerBytes.length);
  out.writeUInt32BE(crc32Of(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** A Bedrock stream event: {":event-type", ":content-type", ":message-type": "event"} + JSON payload. */
export function encodeEvent(eventType: string, payload: unknown): Buffer {
  return encodeMessage({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));
}

/** A Bedrock stream exception: {":exception-type", ":message-type": "exception"} + {"message"}. */
export function encodeException(exceptionType: string, message: string): Buffer {
  return encodeMessage({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, JSON.stringify({ message }));
}

/** Recorded events ({ "event": name, "payload": {...} } or { "exception": name, "message": "..." }) as bytes. */
export function encodeEvents(events: Array<{ event?: string; payload?: unknown; exception?: string; message?: string }>): Buffer {
  return Buffer.concat(events.map((e) => (e.exception ? encodeException(e.exception, e.message ?? '') : encodeEvent(e.event!, e.payload ?? {}))));
}

/** Splits bytes into pieces of `size` (the last may be shorter), to cross message boundaries. */
export function slices(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}
