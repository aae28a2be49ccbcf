import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createInflate, type Inflate } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels per colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/**
 * Pixel data examined for transparency, at most (16 MiB: a 2048x2048 RGBA image). An image
 * with more is judged by its colour type and tRNS chunk alone, and the upstream decides.
 */
export const PIXEL_SCAN_LIMIT = 16 * 1024 * 1024;
/**
 * Deflate cannot inflate one byte into more than about 1032 (258-byte matches coded in 2 bits):
 * pixel data larger than that many times the file is not a PNG but a lie about its size.
 */
const MAX_DEFLATE_RATIO = 1032;
/** Chunks other than IDAT are read whole; none a PNG needs is larger. */
const MAX_CHUNK = 1024 * 1024;
const PNG_MAX_DIMENSION = 2 ** 31 - 1;

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
  /** The tRNS chunk, when there is one. */
  trns?: Buffer;
  /** Bytes of inflated pixel data the header promises (filter bytes included). */
  rawBytes: number;
}

export interface PngCheck extends PngInfo {
  /** With `transparency` asked for: whether any pixel is not fully opaque. */
  transparent?: boolean;
}

/** A PNG that is not one, or not a whole one: the message says what is wrong. */
export class PngError extends Error {}

export function isPng(data: Buffer): boolean {
  return data.length >= 8 && data.subarray(0, 8).equals(SIGNATURE);
}

/** The sub-images a PNG's pixel data is stored as: one, or Adam7's seven passes. */
function passes(width: number, height: number, interlaced: boolean): Array<[number, number]> {
  if (!interlaced) return [[width, height]];
  const adam7: Array<[number, number, number, number]> = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ];
  return adam7.map(([x0, y0, dx, dy]) => [Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)] as [number, number]).filter(([w, h]) => w > 0 && h > 0);
}

function readHeader(body: Buffer): PngInfo {
  if (body.length !== 13) throw new PngError('has a malformed PNG header');
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const bitDepth = body[8]!;
  const colorType = body[9]!;
  if (!CHANNELS[colorType] || !DEPTHS[colorType]!.includes(bitDepth)) throw new PngError('has an unknown PNG colour type or bit depth');
  if (width === 0 || height === 0) throw new PngError('has no pixels');
  if (width > PNG_MAX_DIMENSION || height > PNG_MAX_DIMENSION) throw new PngError('has dimensions beyond what PNG allows');
  if (body[10] !== 0 || body[11] !== 0 || body[12]! > 1) throw new PngError('has an unknown PNG compression, filter or interlace method');
  const interlaced = body[12] === 1;
  const bitsPerPixel = CHANNELS[colorType]! * bitDepth;
  let rawBytes = 0;
  for (const [w, h] of passes(width, height, interlaced)) rawBytes += h * (1 + Math.ceil((w * bitsPerPixel) / 8));
  return { width, height, bitDepth, colorType, interlaced, rawBytes };
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
  const n = line.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) line[i] = (line[i]! + line[i - bpp]!) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i++) line[i] = (line[i]! + prev[i]!) & 0xff;
      return;
    case 3:
      for (let i = 0; i < n; i++) line[i] = (line[i]! + (((i >= bpp ? line[i - bpp]! : 0) + prev[i]!) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const left = i >= bpp ? line[i - bpp]! : 0;
        const upLeft = i >= bpp ? prev[i - bpp]! : 0;
        line[i] = (line[i]! + paeth(left, prev[i]!, upLeft)) & 0xff;
      }
      return;
    default:
      throw new PngError('has corrupt PNG pixel data (unknown filter)');
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
 * Reads unfiltered scanlines as inflated pixel data arrives, a row at a time, and says as soon
 * as one pixel is not fully opaque (alpha below full, a palette entry whose tRNS alpha is below
 * 255, or the tRNS colour key).
 */
class TransparencyScan {
  private readonly channels: number;
  private readonly bitsPerPixel: number;
  private readonly bpp: number;
  private readonly max: number;
  private readonly key?: number[];
  private readonly passList: Array<[number, number]>;
  private pass = 0;
  private row = 0;
  private rowBytes = 0;
  private line!: Buffer;
  private prev!: Buffer;
  private filled = -1;
  private filter = 0;
  found = false;
  done = false;

  constructor(private readonly png: PngInfo) {
    this.channels = CHANNELS[png.colorType]!;
    this.bitsPerPixel = this.channels * png.bitDepth;
    this.bpp = Math.max(1, this.bitsPerPixel >> 3);
    this.max = (1 << png.bitDepth) - 1;
    const trns = png.trns;
    if (trns && (png.colorType === 0 || png.colorType === 2) && trns.length >= this.channels * 2) {
      this.key = [0, 2, 4].slice(0, this.channels).map((o) => trns.readUInt16BE(o) & this.max);
    }
    this.passList = passes(png.width, png.height, png.interlaced);
    this.startPass();
  }

  private startPass(): void {
    if (this.pass >= this.passList.length) {
      this.done = true;
      return;
    }
    this.rowBytes = Math.ceil((this.passList[this.pass]![0] * this.bitsPerPixel) / 8);
    this.line = Buffer.alloc(this.rowBytes);
    this.prev = Buffer.alloc(this.rowBytes);
    this.row = 0;
    this.filled = -1;
  }

  /** Feeds inflated bytes; stops (found or done) as soon as the answer is known. */
  feed(data: Buffer): void {
    let i = 0;
    while (i < data.length && !this.found && !this.done) {
      if (this.filled < 0) {
        this.filter = data[i++]!;
        this.filled = 0;
        continue;
      }
      const take = Math.min(this.rowBytes - this.filled, data.length - i);
      data.copy(this.line, this.filled, i, i + take);
      this.filled += take;
      i += take;
      if (this.filled === this.rowBytes) this.endRow();
    }
  }

  private endRow(): void {
    unfilter(this.filter, this.line, this.prev, this.bpp);
    if (this.rowHasTransparency(this.line, this.passList[this.pass]![0])) {
      this.found = true;
      return;
    }
    const swap = this.prev;
    this.prev = this.line;
    this.line = swap;
    this.filled = -1;
    if (++this.row === this.passList[this.pass]![1]) {
      this.pass++;
      this.startPass();
    }
  }

  private rowHasTransparency(line: Buffer, width: number): boolean {
    const { colorType, bitDepth, trns } = this.png;
    const channels = this.channels;
    if (colorType === 6 && bitDepth === 8) {
      for (let o = 3; o < line.length; o += 4) if (line[o] !== 255) return true;
      return false;
    }
    for (let x = 0; x < width; x++) {
      if (colorType === 4 || colorType === 6) {
        if (sample(line, x * channels + channels - 1, bitDepth) < this.max) return true;
      } else if (colorType === 3) {
        const index = sample(line, x, bitDepth);
        if (index < trns!.length && trns![index]! < 255) return true;
      } else if (this.key) {
        let same = true;
        for (let c = 0; c < channels && same; c++) same = sample(line, x * channels + c, bitDepth) === this.key[c];
        if (same) return true;
      }
    }
    return false;
  }
}

/** Whether the colour type and tRNS chunk allow any transparency at all. */
function mayBeTransparent(png: PngInfo): boolean {
  if (png.colorType === 4 || png.colorType === 6) return true;
  if (!png.trns) return false;
  if (png.colorType === 3) return [...png.trns].some((a) => a < 255);
  return true;
}

/**
 * Checks a PNG as it is read from `source` (a file or any byte stream), never holding more
 * than one chunk header and one scanline: signature, IHDR (a known colour type and depth, and
 * dimensions a file of `fileBytes` can honestly hold), the chunk structure up to IEND, and,
 * when `transparency` is asked, whether any pixel is transparent. Pixel data is inflated
 * incrementally by zlib (off the event loop) and examined row by row, at most
 * PIXEL_SCAN_LIMIT bytes of it; reading stops as soon as the answer is known.
 * Throws PngError saying what is wrong.
 */
export async function inspectPng(source: Readable, options: { fileBytes: number; transparency: boolean }): Promise<PngCheck> {
  const state = new PngReader(options);
  try {
    for await (const chunk of source) {
      state.push(chunk as Buffer);
      await state.flush();
      if (state.finished) break;
    }
    return await state.end();
  } finally {
    state.close();
    if (!source.destroyed) source.destroy();
  }
}

/** inspectPng on a file. */
export function inspectPngFile(path: string, options: { fileBytes: number; transparency: boolean }): Promise<PngCheck> {
  const source = createReadStream(path, { highWaterMark: 64 * 1024 });
  source.on('error', () => undefined);
  return inspectPng(source, options);
}

class PngReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private offset = 0;
  private phase: 'signature' | 'chunk-head' | 'chunk-body' | 'crc' | 'end' = 'signature';
  private chunkType = '';
  private chunkLeft = 0;
  private chunkBody: Buffer[] = [];
  private info?: PngInfo;
  private trns?: Buffer;
  private seenIdat = false;
  private scan?: TransparencyScan;
  private inflate?: Inflate;
  private inflateError?: Error;
  private inflated = 0;
  private readonly wantTransparency: boolean;
  /** The answer is known: no more bytes are needed. */
  finished = false;
  private transparent: boolean | undefined;

  constructor(private readonly options: { fileBytes: number; transparency: boolean }) {
    this.wantTransparency = options.transparency;
  }

  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
  }

  private take(n: number): Buffer | undefined {
    if (this.pendingBytes < n) return undefined;
    const all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.pending = rest.length ? [rest] : [];
    this.pendingBytes = rest.length;
    return out;
  }

  /** Parses what arrived; IDAT bytes go to the inflater (awaited when it is behind). */
  async flush(): Promise<void> {
    for (;;) {
      if (this.finished) return;
      if (this.phase === 'signature') {
        const sig = this.take(8);
        if (!sig) return;
        if (!sig.equals(SIGNATURE)) throw new PngError('is not a PNG file');
        this.phase = 'chunk-head';
      } else if (this.phase === 'chunk-head') {
        const head = this.take(8);
        if (!head) return;
        this.chunkLeft = head.readUInt32BE(0);
        this.chunkType = head.toString('latin1', 4, 8);
        if (!this.info && this.chunkType !== 'IHDR') throw new PngError('is not a valid PNG (IHDR must come first)');
        if (this.chunkType !== 'IDAT' && this.chunkLeft > MAX_CHUNK) throw new PngError(`has an oversized ${this.chunkType.replace(/[^\x20-\x7e]/g, '?')} chunk`);
        this.chunkBody = [];
        this.phase = 'chunk-body';
      } else if (this.phase === 'chunk-body') {
        if (this.chunkLeft > 0) {
          if (this.pendingBytes === 0) return;
          const piece = this.take(Math.min(this.chunkLeft, this.pendingBytes))!;
          this.chunkLeft -= piece.length;
          if (this.chunkType === 'IDAT') await this.onIdat(piece);
          else this.chunkBody.push(piece);
          if (this.chunkLeft > 0) continue;
        }
        this.onChunk(this.chunkType, Buffer.concat(this.chunkBody));
        this.phase = 'crc';
      } else if (this.phase === 'crc') {
        if (!this.take(4)) return;
        this.phase = this.chunkType === 'IEND' ? 'end' : 'chunk-head';
        if (this.phase === 'end' && !this.scan) this.finished = true;
      } else {
        // Bytes after IEND are ignored.
        this.pending = [];
        this.pendingBytes = 0;
        return;
      }
    }
  }

  private onChunk(type: string, body: Buffer): void {
    if (type === 'IHDR') {
      if (this.info) throw new PngError('is not a valid PNG (two headers)');
      const info = readHeader(body);
      // No deflate stream of this file's size can honestly hold that many pixels.
      if (info.rawBytes > this.options.fileBytes * MAX_DEFLATE_RATIO) {
        throw new PngError(`claims ${info.width}x${info.height} pixels, more than a PNG of ${this.options.fileBytes} bytes can hold`);
      }
      this.info = info;
    } else if (type === 'tRNS') this.trns = body;
    else if (type === 'IEND' && !this.seenIdat) throw new PngError('is a truncated PNG (no pixel data)');
  }

  private async onIdat(piece: Buffer): Promise<void> {
    if (!this.seenIdat) {
      this.seenIdat = true;
      const info = this.info!;
      if (this.trns) info.trns = this.trns;
      if (this.wantTransparency) {
        if (!mayBeTransparent(info)) this.answer(false);
        else if (info.rawBytes > PIXEL_SCAN_LIMIT) this.answer(true);
        else this.startInflate(info);
      }
    }
    const inflate = this.inflate;
    if (!inflate || this.finished) return;
    if (this.inflateError) throw this.inflateError;
    if (!inflate.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          inflate.off('drain', done);
          inflate.off('close', done);
          resolve();
        };
        inflate.on('drain', done);
        inflate.on('close', done);
      });
    }
    if (this.inflateError) throw this.inflateError;
  }

  private startInflate(info: PngInfo): void {
    const scan = new TransparencyScan(info);
    this.scan = scan;
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    this.inflate = inflate;
    inflate.on('data', (data: Buffer) => {
      if (this.finished) return;
      // Bytes beyond what the header promises are not looked at.
      const room = info.rawBytes - this.inflated;
      const usable = data.length > room ? data.subarray(0, room) : data;
      this.inflated += usable.length;
      try {
        scan.feed(usable);
      } catch (err) {
        this.inflateError = err as Error;
        inflate.destroy();
        return;
      }
      if (scan.found) this.answer(true);
      else if (scan.done) this.answer(false);
    });
    inflate.on('error', () => {
      this.inflateError ??= new PngError('has corrupt PNG pixel data');
    });
  }

  private answer(transparent: boolean): void {
    this.transparent = transparent;
    this.finished = true;
    this.inflate?.destroy();
  }

  /** The source ended (or the answer is known). */
  async end(): Promise<PngCheck> {
    if (this.inflateError) throw this.inflateError;
    if (!this.finished) {
      if (this.phase === 'signature') throw new PngError('is not a PNG file');
      if (this.phase !== 'end') throw new PngError(`is a truncated PNG${this.info ? ` (chunk ${this.chunkType.replace(/[^\x20-\x7e]/g, '?')})` : ''}`);
      // Every IDAT byte went in: let the inflater finish what it holds.
      const inflate = this.inflate!;
      await new Promise<void>((resolve) => {
        inflate.once('end', resolve);
        inflate.once('close', resolve);
        inflate.end();
      });
      if (this.inflateError) throw this.inflateError;
      if (!this.finished) throw new PngError('has truncated PNG pixel data');
    }
    if (!this.info) throw new PngError('is not a valid PNG (no header)');
    const out: PngCheck = { ...this.info };
    if (this.transparent !== undefined) out.transparent = this.transparent;
    return out;
  }

  close(): void {
    this.inflate?.destroy();
  }
}
