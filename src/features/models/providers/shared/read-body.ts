import type { Readable } from 'node:stream';

/** Reads a whole (bounded) upstream body into one Buffer; past `limit`, the rest is discarded. */
export function readBody(body: Readable, limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      if (size >= limit) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    body.once('error', reject);
  });
}
