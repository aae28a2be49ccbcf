import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, body and CRC. */
export function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

export interface PngOptions {
  width: number;
  height?: number;
  /** 2 RGB, 6 RGBA (8-bit), 3 palette. */
  colorType?: 2 | 3 | 6;
  /** Alpha of every pixel (RGBA) except `transparentAt`. */
  alpha?: number;
  /** Index of one pixel that gets alpha 0 (RGBA) or palette entry 1 (palette). */
  transparentAt?: number;
  /** Row filter written for every scanline (0-4), to exercise unfiltering. */
  filter?: number;
  /** A tRNS chunk (palette: alpha per entry). */
  trns?: Buffer;
  /** Extra bytes appended after IEND (to make a large file). */
  padding?: number;
}

/** A real PNG, built here byte by byte (signature, IHDR, optional PLTE/tRNS, IDAT, IEND). */
export function makePng(opts: PngOptions): Buffer {
  const width = opts.width;
  const height = opts.height ?? opts.width;
  const colorType = opts.colorType ?? 6;
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 1;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  const rowBytes = width * channels;
  const raw = Buffer.alloc(height * (rowBytes + 1));
  const filter = opts.filter ?? 0;
  let prev = Buffer.alloc(rowBytes);
  for (let y = 0; y < height; y++) {
    const line = Buffer.alloc(rowBytes);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const o = x * channels;
      if (colorType === 3) line[o] = i === opts.transparentAt ? 1 : 0;
      else {
        line[o] = (x * 7) & 0xff;
        line[o + 1] = (y * 13) & 0xff;
        line[o + 2] = 128;
        if (colorType === 6) line[o + 3] = i === opts.transparentAt ? 0 : (opts.alpha ?? 255);
      }
    }
    const out = raw.subarray(y * (rowBytes + 1), (y + 1) * (rowBytes + 1));
    out[0] = filter;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= channels ? line[i - channels]! : 0;
      const up = prev[i]!;
      const upLeft = i >= channels ? prev[i - channels]! : 0;
      let pred = 0;
      if (filter === 1) pred = left;
      else if (filter === 2) pred = up;
      else if (filter === 3) pred = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        pred = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      out[1 + i] = (line[i]! - pred) & 0xff;
    }
    prev = line;
  }
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr)];
  if (colorType === 3) parts.push(pngChunk('PLTE', Buffer.from([0, 0, 0, 255, 255, 255])));
  if (opts.trns) parts.push(pngChunk('tRNS', opts.trns));
  parts.push(pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0)));
  if (opts.padding) parts.push(Buffer.alloc(opts.padding));
  return Buffer.concat(parts);
}
