import { inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels per colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** Pixel data inflated to look for transparent pixels, at most. */
export const PIXEL_SCAN_LIMIT = 64 * 1024 * 1024;

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
  /** The tRNS chunk, when there is one. */
  trns?: Buffer;
  idat: Buffer[];
}

export function isPng(data: Buffer): boolean {
  return data.length >= 8 && data.subarray(0, 8).equals(SIGNATURE);
}

/** Reads the chunks of a PNG: IHDR, tRNS, IDAT. Throws an Error saying what is wrong. */
export function readPng(data: Buffer): PngInfo {
  if (!isPng(data)) throw new Error('is not a PNG file');
  let offset = 8;
  let info: Omit<PngInfo, 'idat'> | undefined;
  const idat: Buffer[] = [];
  let trns: Buffer | undefined;
  let ended = false;
  while (offset + 8 <= data.length) {
    const length = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    const end = start + length;
    if (end + 4 > data.length) throw new Error(`is a truncated PNG (chunk ${type})`);
    const body = data.subarray(start, end);
    if (!info && type !== 'IHDR') throw new Error('is not a valid PNG (IHDR must come first)');
    if (type === 'IHDR') {
      if (length !== 13) throw new Error('has a malformed PNG header');
      const colorType = body[9]!;
      const bitDepth = body[8]!;
      if (!CHANNELS[colorType] || !DEPTHS[colorType]!.includes(bitDepth)) throw new Error('has an unknown PNG colour type or bit depth');
      info = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), bitDepth, colorType, interlaced: body[12] === 1 };
      if (info.width === 0 || info.height === 0) throw new Error('has no pixels');
    } else if (type === 'tRNS') trns = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') {
      ended = true;
      break;
    }
    offset = end + 4;
  }
  if (!info) throw new Error('is not a valid PNG (no header)');
  if (!ended || idat.length === 0) throw new Error('is a truncated PNG');
  return { ...info, trns, idat };
}

/** The sub-images a PNG's pixel data is stored as: one, or Adam7's seven passes. */
function passes(width: number, height: number, interlaced: boolean): Array<[number, number]> {
  if (!interlaced) return [[width, height]];
  const adam7: Array<[number, number, number, number]> = [
    [0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2],
  ];
  return adam7.map(([x0, y0, dx, dy]) => [Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)] as [number, number]).filter(([w, h]) => w > 0 && h > 0);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes one scanline's filter in place (`prev` is the unfiltered line above, or zeros). */
function unfilter(filter: number, line: Buffer, prev: Buffer, bpp: number): void {
  for (let i = 0; i < line.length; i++) {
    const left = i >= bpp ? line[i - bpp]! : 0;
    const up = prev[i]!;
    const upLeft = i >= bpp ? prev[i - bpp]! : 0;
    let v = line[i]!;
    if (filter === 1) v += left;
    else if (filter === 2) v += up;
    else if (filter === 3) v += (left + up) >> 1;
    else if (filter === 4) v += paeth(left, up, upLeft);
    else if (filter !== 0) throw new Error('has corrupt PNG pixel data (unknown filter)');
    line[i] = v & 0xff;
  }
}

function sample(line: Buffer, index: number, depth: number): number {
  if (depth === 8) return line[index]!;
  if (depth === 16) return line.readUInt16BE(index * 2);
  const perByte = 8 / depth;
  const byte = line[Math.floor(index / perByte)]!;
  const shift = 8 - depth * ((index % perByte) + 1);
  return (byte >> shift) & ((1 << depth) - 1);
}

/**
 * Whether the image has transparency: a colour type with alpha or a tRNS chunk says it may;
 * the pixels are then read (inflated, unfiltered, at most PIXEL_SCAN_LIMIT bytes) until one
 * pixel with alpha below full opacity is found (or a pixel matching the tRNS colour key / a
 * palette entry whose tRNS alpha is below 255). An image whose pixel data is larger than the
 * limit is judged by its colour type and tRNS alone.
 */
export function hasTransparency(png: PngInfo): boolean {
  const { colorType, bitDepth, trns } = png;
  const hasAlphaChannel = colorType === 4 || colorType === 6;
  if (!hasAlphaChannel && !trns) return false;
  if (colorType === 3 && trns && ![...trns].some((a) => a < 255)) return false;
  const channels = CHANNELS[colorType]!;
  const bitsPerPixel = channels * bitDepth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const parts = passes(png.width, png.height, png.interlaced);
  let expected = 0;
  for (const [w, h] of parts) expected += h * (1 + Math.ceil((w * bitsPerPixel) / 8));
  if (expected > PIXEL_SCAN_LIMIT) return true;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(png.idat), { maxOutputLength: expected + 1 });
  } catch {
    throw new Error('has corrupt PNG pixel data');
  }
  if (raw.length < expected) throw new Error('has truncated PNG pixel data');
  const max = (1 << bitDepth) - 1;
  const key = trns && (colorType === 0 || colorType === 2) ? [0, 2, 4].slice(0, channels).map((o) => trns.readUInt16BE(o) & max) : undefined;
  let offset = 0;
  for (const [w, h] of parts) {
    const rowBytes = Math.ceil((w * bitsPerPixel) / 8);
    let prev: Buffer = Buffer.alloc(rowBytes);
    for (let y = 0; y < h; y++) {
      const filter = raw[offset]!;
      const line = raw.subarray(offset + 1, offset + 1 + rowBytes);
      unfilter(filter, line, prev, bpp);
      offset += 1 + rowBytes;
      for (let x = 0; x < w; x++) {
        if (hasAlphaChannel) {
          if (sample(line, x * channels + channels - 1, bitDepth) < max) return true;
        } else if (colorType === 3) {
          const index = sample(line, x, bitDepth);
          if (index < trns!.length && trns![index]! < 255) return true;
        } else if (key) {
          let same = true;
          for (let c = 0; c < channels && same; c++) same = sample(line, x * channels + c, bitDepth) === key[c];
          if (same) return true;
        }
      }
      prev = line;
    }
  }
  return false;
}
