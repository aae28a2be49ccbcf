import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent } from '../../../src/contract/sse/sse-parser.js';

async function* chunksOf(parts: Array<string | Buffer>): AsyncGenerator<Buffer> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
}

async function parse(parts: Array<string | Buffer>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSse(chunksOf(parts))) out.push(event);
  return out;
}

/** Every way of cutting `bytes` into single bytes. */
function byteByByte(text: string): Buffer[] {
  return [...Buffer.from(text, 'utf8')].map((b) => Buffer.from([b]));
}

const OPENAI_STREAM =
  'data: {"id":"c1","choices":[{"delta":{"role":"assistant","content":""}}]}\n\n' +
  'data: {"id":"c1","choices":[{"delta":{"content":"Hé"}}]}\n\n' +
  'data: {"id":"c1","choices":[{"delta":{"content":"llo 😀"}}]}\n\n' +
  'data: [DONE]\n\n';

describe('parseSse', () => {
  it('splits a stream into its events', async () => {
    const events = await parse([OPENAI_STREAM]);
    expect(events.map((e) => e.data)).toEqual([
      '{"id":"c1","choices":[{"delta":{"role":"assistant","content":""}}]}',
      '{"id":"c1","choices":[{"delta":{"content":"Hé"}}]}',
      '{"id":"c1","choices":[{"delta":{"content":"llo 😀"}}]}',
      '[DONE]',
    ]);
  });

  it('gives the same events however the bytes are cut, even inside a UTF-8 character', async () => {
    const whole = await parse([OPENAI_STREAM]);
    expect(await parse(byteByByte(OPENAI_STREAM))).toEqual(whole);
    const bytes = Buffer.from(OPENAI_STREAM, 'utf8');
    const emoji = bytes.indexOf(Buffer.from('😀', 'utf8'));
    // Cut in the middle of the 4-byte emoji, and of the 2-byte é.
    const eAcute = bytes.indexOf(Buffer.from('é', 'utf8'));
    expect(await parse([bytes.subarray(0, eAcute + 1), bytes.subarray(eAcute + 1, emoji + 2), bytes.subarray(emoji + 2)])).toEqual(whole);
  });

  it('waits for the blank line before giving an event', async () => {
    const seen: string[] = [];
    async function* slow(): AsyncGenerator<Buffer> {
      yield Buffer.from('data: one\n');
      expect(seen).toEqual([]);
      yield Buffer.from('\ndata: tw');
      expect(seen).toEqual(['one']);
      yield Buffer.from('o\n\n');
    }
    for await (const e of parseSse(slow())) seen.push(e.data);
    expect(seen).toEqual(['one', 'two']);
  });

  it('accepts CRLF line ends, and LF and CRLF mixed', async () => {
    expect((await parse(['data: a\r\n\r\ndata: b\r\n\r\n'])).map((e) => e.data)).toEqual(['a', 'b']);
    expect((await parse(['data: a\n\r\ndata: b\r\n\ndata: c\n\n'])).map((e) => e.data)).toEqual(['a', 'b', 'c']);
    expect((await parse(byteByByte('event: x\r\ndata: a\r\n\r\ndata: b\r\n\r\n'))).map((e) => [e.event, e.data])).toEqual([
      ['x', 'a'],
      [undefined, 'b'],
    ]);
  });

  it('joins multi-line data with a newline', async () => {
    expect(await parse(['data: {\ndata:   "a": 1\ndata: }\n\n'])).toEqual([{ data: '{\n  "a": 1\n}', event: undefined, id: undefined }]);
  });

  it('skips comments, and blocks that are only comments (keep-alives)', async () => {
    expect(await parse([': ping\n\n:another\ndata: x\n: inside\n\n: OPENROUTER PROCESSING\n\n'])).toEqual([{ data: 'x', event: undefined, id: undefined }]);
  });

  it('reads event and id fields, with or without the space after the colon', async () => {
    expect(await parse(['event: message_start\nid: 7\ndata:{"a":1}\n\nevent:ping\n\n'])).toEqual([
      { event: 'message_start', id: '7', data: '{"a":1}' },
      { event: 'ping', id: undefined, data: '' },
    ]);
  });

  it('keeps a space that is part of the value, and a colon inside it', async () => {
    expect((await parse(['data:  two spaces: kept\n\n']))[0]!.data).toBe(' two spaces: kept');
  });

  it('ignores unknown fields', async () => {
    expect(await parse(['retry: 1000\nfoo: bar\ndata: x\n\n'])).toEqual([{ data: 'x', event: undefined, id: undefined }]);
  });

  it('keeps a last event that lacks only its blank line, and drops a line cut off mid-way', async () => {
    expect((await parse(['data: a\n\ndata: [DONE]\n'])).map((e) => e.data)).toEqual(['a', '[DONE]']);
    expect((await parse(['data: a\n\ndata: {"cut'])).map((e) => e.data)).toEqual(['a']);
  });

  it('passes large events through whole', async () => {
    const big = 'x'.repeat(200_000);
    const text = `data: ${big}\n\n`;
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += 1000) parts.push(text.slice(i, i + 1000));
    expect((await parse(parts))[0]!.data).toBe(big);
  });
});

describe('SseFramer fast paths', () => {
  /** The events of `text` parsed line by line (every event through the general path). */
  function reference(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    for (const block of text.split(/\r?\n\r?\n/).slice(0, -1)) {
      let data: string | undefined;
      let event: string | undefined;
      let id: string | undefined;
      for (const raw of block.split(/\r?\n/)) {
        if (raw === '' || raw.startsWith(':')) continue;
        const colon = raw.indexOf(':');
        const field = colon < 0 ? raw : raw.slice(0, colon);
        let value = colon < 0 ? '' : raw.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
        else if (field === 'event') event = value;
        else if (field === 'id') id = value;
      }
      if (data !== undefined || event !== undefined) out.push({ event, data: data ?? '', id });
    }
    return out;
  }

  it("read Anthropic's two-line events (event, then one data line) as the general parser does, however cut", async () => {
    const anthropic =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m"}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé"}}\n\n' +
      'event: ping\ndata: {"type": "ping"}\n\n' +
      'event:  spaced\ndata:  two spaces\n\n' +
      'event: two-data\ndata: a\ndata: b\n\n' +
      'event: crlf\r\ndata: x\r\n\r\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const whole = await parse([anthropic]);
    expect(whole).toEqual(reference(anthropic));
    expect(whole.map((e) => e.event)).toEqual(['message_start', 'content_block_delta', 'ping', ' spaced', 'two-data', 'crlf', 'message_stop']);
    expect(whole[4]!.data).toBe('a\nb');
    expect(await parse(byteByByte(anthropic))).toEqual(whole);
  });

  it('agree with the general parser on any mix of event, data, id and comment lines', async () => {
    const fc = await import('fast-check');
    const line = fc.oneof(
      fc.constantFrom('data: ', 'data:', 'event: ', 'event:', 'id: ', ': ').chain((field) => fc.string({ maxLength: 6 }).map((v) => field + v.replace(/[\r\n]/g, ''))),
      fc.constant(''),
    );
    const eol = fc.constantFrom('\n', '\r\n');
    const block = fc.tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 4 }), eol).map(([lines, end]) => lines.map(([l, e]) => l + e).join('') + end);
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 6 }), async (blocks) => {
        const text = blocks.join('');
        // A blank line inside a block ends the event there: the reference splits the same way.
        expect(await parse([text])).toEqual(reference(text));
      }),
      { seed: 14, numRuns: 300 },
    );
  });
});
