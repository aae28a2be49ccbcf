import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readRequestBytes } from '../../../../src/kernel/engine/request-body.js';

/** A request whose body comes in `parts`, one write each, a turn of the event loop apart. */
function requestOf(parts: string[], headers: Record<string, string> = {}): IncomingMessage {
  const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
  Object.assign(req, { headers });
  void (async () => {
    for (const part of parts) {
      await new Promise((r) => setImmediate(r));
      req.write(Buffer.from(part));
    }
    req.end();
  })();
  return req;
}

describe('readRequestBytes', () => {
  it('gives the bytes of a body that comes in several chunks, in order', async () => {
    const body = await readRequestBytes(requestOf(['{"a":', '"b', 'c"}']), 1024);
    expect(body.toString()).toBe('{"a":"bc"}');
  });

  it('gives the one chunk of a body that comes at once', async () => {
    const body = await readRequestBytes(requestOf(['{"a":1}']), 1024);
    expect(body.toString()).toBe('{"a":1}');
  });

  it('refuses a body over the limit', async () => {
    await expect(readRequestBytes(requestOf(['0123456789', '0123456789']), 15)).rejects.toMatchObject({ status: 400 });
  });
});
