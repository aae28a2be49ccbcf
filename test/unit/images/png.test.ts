import { describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { hasTransparency, isPng, readPng } from '../../../src/images/png.js';
import { makePng } from '../../helpers/png.js';

describe('PNG checks of image edits', () => {
  it('reads the size and colour type from IHDR', () => {
    const info = readPng(makePng({ width: 16, height: 8 }));
    expect(info).toMatchObject({ width: 16, height: 8, bitDepth: 8, colorType: 6, interlaced: false });
  });

  it('refuses what is not a PNG, or a cut PNG', () => {
    expect(isPng(Buffer.from('GIF89a....'))).toBe(false);
    expect(() => readPng(Buffer.from('\x89PNG but not really'))).toThrow(/not a PNG/);
    const png = makePng({ width: 8 });
    expect(() => readPng(png.subarray(0, png.length - 20))).toThrow(/truncated/);
  });

  it('an RGB image without tRNS has no transparency', () => {
    expect(hasTransparency(readPng(makePng({ width: 8, colorType: 2 })))).toBe(false);
  });

  it('an RGBA image whose pixels are all opaque has no transparency', () => {
    expect(hasTransparency(readPng(makePng({ width: 32, alpha: 255 })))).toBe(false);
  });

  it.each([0, 1, 2, 3, 4])('finds one transparent pixel through row filter %i', (filter) => {
    expect(hasTransparency(readPng(makePng({ width: 32, alpha: 255, transparentAt: 32 * 20 + 17, filter })))).toBe(true);
    expect(hasTransparency(readPng(makePng({ width: 32, alpha: 255, filter })))).toBe(false);
  });

  it('counts partly transparent pixels (alpha below 255)', () => {
    expect(hasTransparency(readPng(makePng({ width: 8, alpha: 254 })))).toBe(true);
  });

  it('a palette image is transparent only when a used entry has tRNS alpha below 255', () => {
    const trns = Buffer.from([255, 0]);
    expect(hasTransparency(readPng(makePng({ width: 8, colorType: 3, trns, transparentAt: 5 })))).toBe(true);
    expect(hasTransparency(readPng(makePng({ width: 8, colorType: 3, trns })))).toBe(false);
    expect(hasTransparency(readPng(makePng({ width: 8, colorType: 3, trns: Buffer.from([255, 255]), transparentAt: 5 })))).toBe(false);
  });

  it('says corrupt pixel data is corrupt', () => {
    const info = readPng(makePng({ width: 8 }));
    info.idat = [Buffer.from('not deflate data')];
    expect(() => hasTransparency(info)).toThrow(/corrupt/);
    info.idat = [deflateSync(Buffer.alloc(10))];
    expect(() => hasTransparency(info)).toThrow(/truncated/);
  });
});
