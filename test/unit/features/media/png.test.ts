import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { deflateSync } from 'node:zlib';
import { inspectPng, isPng, PIXEL_SCAN_LIMIT } from '../../../../src/features/media/png.js';
import { makePng, pngChunk } from '../../../helpers/png.js';

/** Feeds the bytes in small pieces, as a file or a socket would. */
function source(data: Buffer, piece = 997): Readable & { consumed: () => number } {
  let offset = 0;
  const stream = new Readable({
    read() {
      if (offset >= data.length) this.push(null);
      else {
        this.push(data.subarray(offset, offset + piece));
        offset += piece;
      }
    },
  }) as Readable & { consumed: () => number };
  stream.consumed = () => offset;
  return stream;
}

const check = (data: Buffer, transparency = true) => inspectPng(source(data), { fileBytes: data.length, transparency });

/** A PNG whose IDAT holds `raw` (already filtered rows) deflated, with the given header. */
function pngOf(width: number, height: number, raw: Buffer, colorType = 6): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('PNG checks of image edits', () => {
  it('reads the size and colour type from IHDR', async () => {
    expect(await check(makePng({ width: 16, height: 8 }), false)).toMatchObject({ width: 16, height: 8, bitDepth: 8, colorType: 6, interlaced: false });
  });

  it('refuses what is not a PNG, or a cut PNG', async () => {
    expect(isPng(Buffer.from('GIF89a....'))).toBe(false);
    await expect(check(Buffer.from('\x89PNG but not really'))).rejects.toThrow(/not a PNG/);
    const png = makePng({ width: 8 });
    await expect(check(png.subarray(0, png.length - 20), false)).rejects.toThrow(/truncated/);
  });

  it('an RGB image without tRNS has no transparency (and its pixels are not read)', async () => {
    expect((await check(makePng({ width: 8, colorType: 2 }))).transparent).toBe(false);
  });

  it('an RGBA image whose pixels are all opaque has no transparency', async () => {
    expect((await check(makePng({ width: 32, alpha: 255 }))).transparent).toBe(false);
  });

  it.each([0, 1, 2, 3, 4])('finds one transparent pixel through row filter %i', async (filter) => {
    expect((await check(makePng({ width: 32, alpha: 255, transparentAt: 32 * 20 + 17, filter }))).transparent).toBe(true);
    expect((await check(makePng({ width: 32, alpha: 255, filter }))).transparent).toBe(false);
  });

  it('counts partly transparent pixels (alpha below 255)', async () => {
    expect((await check(makePng({ width: 8, alpha: 254 }))).transparent).toBe(true);
  });

  it('a palette image is transparent only when a used entry has tRNS alpha below 255', async () => {
    const trns = Buffer.from([255, 0]);
    expect((await check(makePng({ width: 8, colorType: 3, trns, transparentAt: 5 }))).transparent).toBe(true);
    expect((await check(makePng({ width: 8, colorType: 3, trns }))).transparent).toBe(false);
    expect((await check(makePng({ width: 8, colorType: 3, trns: Buffer.from([255, 255]), transparentAt: 5 }))).transparent).toBe(false);
  });

  it('says corrupt or short pixel data is so', async () => {
    const ihdr = (w: number) => {
      const b = Buffer.alloc(13);
      b.writeUInt32BE(w, 0);
      b.writeUInt32BE(w, 4);
      b[8] = 8;
      b[9] = 6;
      return b;
    };
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const corrupt = Buffer.concat([sig, pngChunk('IHDR', ihdr(8)), pngChunk('IDAT', Buffer.from('not deflate data')), pngChunk('IEND', Buffer.alloc(0))]);
    await expect(check(corrupt)).rejects.toThrow(/corrupt/);
    await expect(check(pngOf(8, 8, Buffer.alloc(10)))).rejects.toThrow(/truncated/);
  });

  it('stops reading as soon as a transparent pixel is found', async () => {
    // A 1024x1024 image whose first pixel is transparent, padded so the file is large.
    const png = makePng({ width: 1024, alpha: 255, transparentAt: 0, padding: 2 * 1024 * 1024 });
    const src = source(png, 4096);
    const result = await inspectPng(src, { fileBytes: png.length, transparency: true });
    expect(result.transparent).toBe(true);
    expect(src.consumed()).toBeLessThan(png.length / 2);
  });

  it('refuses dimensions no file of its size can honestly hold (a decompression bomb)', async () => {
    // 100000x100000 RGBA claims 40 GB of pixels in a file of a few hundred bytes.
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(100_000, 0);
    ihdr.writeUInt32BE(100_000, 4);
    ihdr[8] = 8;
    ihdr[9] = 6;
    const bomb = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', ihdr),
      pngChunk('IDAT', deflateSync(Buffer.alloc(1 << 20))),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
    await expect(check(bomb)).rejects.toThrow(/more than a PNG of \d+ bytes can hold/);
  });

  it('examines at most PIXEL_SCAN_LIMIT bytes of pixels: a larger image is judged by its colour type', async () => {
    const side = Math.ceil(Math.sqrt(PIXEL_SCAN_LIMIT / 4)) + 16;
    const raw = Buffer.alloc(side * (side * 4 + 1), 255);
    for (let y = 0; y < side; y++) raw[y * (side * 4 + 1)] = 0;
    const png = pngOf(side, side, raw);
    const src = source(png, 4096);
    const result = await inspectPng(src, { fileBytes: png.length, transparency: true });
    expect(result.transparent).toBe(true);
    expect(src.consumed()).toBeLessThan(png.length);
  });
});
