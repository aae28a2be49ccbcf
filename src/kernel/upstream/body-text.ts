import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/** What an upstream body says as text, or that it is not text. */
export interface BodyText {
  /** The body as text (decompressed, decoded from its charset), or undefined when it is not text. */
  text: string | undefined;
  /** How to name the body when it is not text, e.g. "512 bytes of application/octet-stream". */
  description: string;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim().toLowerCase() ?? '';
}

function decompress(buf: Buffer, encoding: string, limit: number): Buffer | undefined {
  const options = { maxOutputLength: limit };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return buf;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(buf, options);
      case 'deflate':
        try {
          return inflateSync(buf, options);
        } catch {
          return inflateRawSync(buf, options);
        }
      case 'br':
        return brotliDecompressSync(buf, options);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

function decode(buf: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w-]+)/.exec(contentType)?.[1];
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf[0] === 0xfe && buf[1] === 0xff) return swap16(buf.subarray(2)).toString('utf16le');
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return buf.subarray(3).toString('utf8');
  switch (charset) {
    case 'utf-16le':
    case 'utf-16':
      return buf.toString('utf16le');
    case 'utf-16be':
      return swap16(buf).toString('utf16le');
    case 'iso-8859-1':
    case 'latin1':
    case 'us-ascii':
    case 'windows-1252':
      return buf.toString('latin1');
    default:
      return buf.toString('utf8');
  }
}

function swap16(buf: Buffer): Buffer {
  const out = Buffer.from(buf.subarray(0, buf.length - (buf.length % 2)));
  return out.swap16();
}

/** Text that a person (and the redactor) can read: no NUL, few replacement or control characters. */
function readable(text: string): boolean {
  if (text.includes('\u0000')) return false;
  let odd = 0;
  for (const c of text) if (c === '\uFFFD' || (c < ' ' && c !== '\n' && c !== '\r' && c !== '\t')) odd++;
  return odd <= Math.max(2, text.length / 50);
}

/**
 * An upstream body (an error answer) as text, whatever its Content-Encoding (gzip, deflate, br)
 * and charset (UTF-8, UTF-16 with or without a byte-order mark, Latin-1), so that the one
 * redactor sees every secret it holds in the spelling it knows. A body that still is not
 * readable text (binary, or an encoding the gateway does not know) is not shown at all, only
 * described: masking cannot be sure of bytes it cannot read.
 */
export function upstreamBodyText(buf: Buffer, headers: IncomingHttpHeaders, limit: number): BodyText {
  const contentType = header(headers, 'content-type');
  const description = `${buf.length} bytes of ${contentType.split(';')[0] || 'unknown type'}${header(headers, 'content-encoding') ? ` (${header(headers, 'content-encoding')})` : ''}`;
  if (buf.length === 0) return { text: '', description };
  const plain = decompress(buf, header(headers, 'content-encoding'), limit);
  if (!plain) return { text: undefined, description };
  const text = decode(plain, contentType);
  return { text: readable(text) ? text : undefined, description };
}
