import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, RequestError } from '../../errors/request-error.js';
import { formHeaderBytes, quoteFormValue } from './multipart-writer.js';

/** An upload's failure: a RequestError of the edge, or the error a route's hook threw (it keeps its own status). */
type GatewayError = Error;

/** A text field as received; repeated names (`a[]`) collect into arrays. */
export type FormFields = Record<string, string | string[]>;

/** One file part: what its headers said, how many bytes it had, and where its bytes wait. */
export interface FilePart {
  field: string;
  filename: string;
  mimeType: string;
  bytes: number;
  /** The spooled bytes (a temporary file, removed when the request ends). */
  path: string;
}

/** What a route checks of its upload. Every hook may throw an error with a status (a RequestError, a catalogue error). */
export interface UploadRules {
  /** Largest file part, in bytes, by field name. */
  fileLimit(field: string): number;
  /** Checks a file part when its headers arrive (name, type): refused before its bytes are read. */
  onFileStart?(part: FilePart): void;
  /** Checks the fields that came before the first file (no required-field checks yet). */
  checkEarlyFields?(fields: FormFields): void;
  /** Checks the whole form once the body has ended and every file part is spooled (may read them). */
  finish(fields: FormFields, files: FilePart[]): void | Promise<void>;
}

/** How a provider wants the form sent when not as it came. */
export interface FormRewrite {
  /** A field as the provider names and spells it; [] drops it. Default: unchanged. */
  field?(name: string, value: string): Array<[string, string]>;
  /** The file part's field name, and fields to send just before it (they need its file name). */
  file?(part: FilePart): { field: string; before?: Array<[string, string]> };
  /** Fields added at the end. */
  extra?: Array<[string, string]>;
}

/** A form ready to send: a fresh stream of it each time one is asked for, its type and exact length. */
export interface SpooledForm {
  body: Readable;
  contentType: string;
  contentLength: number;
}

type Entry = { kind: 'field'; name: string; value: string } | { kind: 'file'; part: FilePart };

const FIELD_LIMIT = 1024 * 1024;
/** Bytes read and dropped after a refusal before the connection is closed. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

let defaultSpool: string | undefined;

/** Makes (if needed) and returns a spool folder; without one, <tmp>/ai-gateway-uploads. */
export function spoolDirectory(dir?: string): string {
  if (dir === undefined) {
    defaultSpool ??= spoolDirectory(join(tmpdir(), 'ai-gateway-uploads'));
    return defaultSpool;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * A multipart request, read whole and checked before anything is sent on. busboy parses it
 * once as it arrives; text fields stay in memory (bounded), each file part is written to a
 * temporary file in the spool folder as it streams (memory stays flat, whatever the size),
 * counted against its limit. The rules check each part as it starts and the whole form once
 * the body ended, whatever the order of its parts (the official SDKs send the file first).
 * Only then does `ready` resolve, and the form can be sent: `form()` streams it anew from the
 * spooled parts each time (so a retry or a fallback sends it again), `toDisk()` moves a file
 * part where the gateway keeps it. The temporary files are removed when the request ends,
 * whatever happened: a refusal, a broken body, a caller who went away.
 *
 * Every stream involved (the request, busboy, each file part, each temporary file) has its
 * error handled: a broken or cut-off body is a 400 (or a closed connection), never a crash.
 */
export class MultipartUpload {
  readonly fields: FormFields = {};
  readonly files: FilePart[] = [];
  /** Resolves once the whole body was read, spooled and checked; rejects with the first problem. */
  readonly ready: Promise<void>;

  private readonly entries: Entry[] = [];
  private readonly spooled = new Set<string>();
  /** Temporary files still being written, and their paths. */
  private readonly writers = new Map<WriteStream, string>();
  private readonly spoolDir: string;
  private error?: GatewayError;
  private parsed = false;
  private checked = false;
  private disposed = false;
  private openParts = 0;
  private sawFile = false;
  private dropped = 0;
  private parserPaused = false;
  private bb?: busboy.Busboy;
  private resolveReady!: () => void;
  private rejectReady!: (err: GatewayError) => void;

  constructor(
    private readonly req: IncomingMessage,
    private readonly rules: UploadRules,
    options: { spoolDir?: string } = {},
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    // A configured folder was made at start-up; the default one on first use.
    this.spoolDir = options.spoolDir ?? spoolDirectory();
    // The request stream itself: a socket error while reading is a cut-off upload.
    req.on('error', () => this.fail(badRequest('The upload was cut off.', 'body')));
    req.once('aborted', () => this.fail(badRequest('The upload was cut off.', 'body')));
    req.once('close', () => {
      if (!req.complete) this.fail(badRequest('The upload was cut off.', 'body'));
    });
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fieldSize: FIELD_LIMIT, fields: 50, parts: 60, files: 10 } });
    } catch {
      this.fail(badRequest('The request must be multipart/form-data with a boundary.', 'content-type'));
      return;
    }
    this.bb = bb;
    bb.on('field', (name, value, info) => this.onField(name, value, info.valueTruncated));
    bb.on('file', (name, stream, info) => this.onFile(name, stream, info));
    bb.on('close', () => this.onParsed());
    bb.on('error', (err: Error) => this.fail(badRequest(`The multipart body is malformed: ${err.message}.`, 'body')));
    bb.on('fieldsLimit', () => this.fail(badRequest('The form has too many fields.', 'body')));
    bb.on('partsLimit', () => this.fail(badRequest('The form has too many parts.', 'body')));
    bb.on('filesLimit', () => this.fail(badRequest('The form has too many files.', 'body')));
    bb.on('drain', () => this.resumeParser());
    req.on('data', (chunk: Buffer) => this.onChunk(chunk));
    req.once('end', () => {
      if (!this.error) bb.end();
    });
  }

  /** The first problem, once there is one. */
  get failure(): GatewayError | undefined {
    return this.error;
  }

  /**
   * The form to send (after `ready`): every part in the order it came, with a fresh boundary,
   * rewritten for the provider when asked; file bytes stream from their spooled copies.
   */
  form(rewrite: FormRewrite = {}): SpooledForm {
    if (!this.checked) throw new Error('the upload is not checked yet: await ready first');
    if (this.disposed) throw new RequestError(500, 'The upload is no longer available.');
    const boundary = `----gateway-${randomBytes(12).toString('hex')}`;
    const pieces: Array<Buffer | FilePart> = [];
    const field = (name: string, value: string) => {
      pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteFormValue(name)}"\r\n\r\n${value}\r\n`, 'utf8'));
    };
    for (const entry of this.entries) {
      if (entry.kind === 'field') {
        const out = rewrite.field ? rewrite.field(entry.name, entry.value) : [[entry.name, entry.value] as [string, string]];
        for (const [n, v] of out) field(n, v);
        continue;
      }
      const part = entry.part;
      const mapped = rewrite.file ? rewrite.file(part) : { field: part.field };
      for (const [n, v] of mapped.before ?? []) field(n, v);
      pieces.push(formHeaderBytes(boundary, mapped.field, part.filename, part.mimeType), part, Buffer.from('\r\n'));
    }
    for (const [n, v] of rewrite.extra ?? []) field(n, v);
    pieces.push(Buffer.from(`--${boundary}--\r\n`));
    let length = 0;
    for (const piece of pieces) length += Buffer.isBuffer(piece) ? piece.length : piece.bytes;
    const body = Readable.from(streamPieces(pieces), { objectMode: false, highWaterMark: 64 * 1024 });
    return { body, contentType: `multipart/form-data; boundary=${boundary}`, contentLength: length };
  }

  /** The form rewritten for a provider (after `ready`). */
  rebuild(rewrite: FormRewrite = {}): SpooledForm {
    return this.form(rewrite);
  }

  /** Moves the (one) file part named `field` to `path`, where the gateway keeps it (after `ready`). */
  async toDisk(field: string, path: string): Promise<FilePart> {
    await this.ready;
    const part = this.files.find((f) => f.field === field);
    if (!part) throw badRequest(`The form has no ${field} file.`, field);
    try {
      await rename(part.path, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(part.path, path);
      await rm(part.path, { force: true });
    }
    this.spooled.delete(part.path);
    part.path = path;
    return part;
  }

  /** The request is over: a form not read to its end is refused, and every temporary file goes. */
  dispose(): void {
    if (!this.error && !this.checked) this.fail(badRequest('The upload was not used.', 'body'));
    if (this.disposed) return;
    this.disposed = true;
    this.removeSpooled();
  }

  /** Records the first problem: parsing stops, spooled parts are removed, `ready` rejects with it. */
  fail(err: GatewayError): void {
    if (this.error) return;
    this.error = err;
    this.removeSpooled();
    this.rejectReady(err);
    // Keep reading (and dropping) what the caller still sends, so that it gets the answer.
    if (this.req.isPaused()) this.req.resume();
  }

  private removeSpooled(): void {
    // A file still being written (maybe not even open yet) is removed once its stream has closed.
    for (const [writer, path] of this.writers) {
      this.spooled.delete(path);
      writer.once('close', () => void rm(path, { force: true }).catch(() => undefined));
      writer.destroy();
    }
    this.writers.clear();
    for (const path of this.spooled) void rm(path, { force: true }).catch(() => undefined);
    this.spooled.clear();
  }

  private onChunk(chunk: Buffer): void {
    if (this.error || !this.bb) {
      // Dropped; a caller that keeps sending long after the answer is cut off.
      this.dropped += chunk.length;
      if (this.dropped > DRAIN_LIMIT) this.req.destroy();
      return;
    }
    if (!this.bb.write(chunk)) this.pauseParser();
  }

  private pauseParser(): void {
    if (this.error || this.parserPaused) return;
    this.parserPaused = true;
    this.req.pause();
  }

  private resumeParser(): void {
    if (!this.parserPaused) return;
    this.parserPaused = false;
    if (!this.req.readableEnded) this.req.resume();
  }

  private onField(name: string | undefined, value: string, truncated: boolean): void {
    if (this.error) return;
    if (!name) {
      this.fail(badRequest('A form part has no name (Content-Disposition: form-data; name="...").', 'body'));
      return;
    }
    if (truncated) {
      this.fail(badRequest(`The form field ${name} is longer than ${FIELD_LIMIT} bytes.`, name));
      return;
    }
    const key = name.endsWith('[]') ? name.slice(0, -2) : name;
    const existing = this.fields[key];
    if (existing === undefined) this.fields[key] = name.endsWith('[]') ? [value] : value;
    else this.fields[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    this.entries.push({ kind: 'field', name, value });
  }

  private onFile(field: string | undefined, stream: Readable, info: busboy.FileInfo): void {
    // Whatever happens next, this part's stream errors (a body cut off inside it) are heard.
    stream.on('error', (err: Error) => this.fail(badRequest(`The multipart body is malformed: ${err.message}.`, field || 'body')));
    if (!field && !this.error) this.fail(badRequest('A form part has no name (Content-Disposition: form-data; name="...").', 'body'));
    if (this.error || !field) {
      stream.resume();
      return;
    }
    const path = join(this.spoolDir, `upload-${randomBytes(12).toString('hex')}`);
    const part: FilePart = { field, filename: info.filename ?? '', mimeType: info.mimeType ?? 'application/octet-stream', bytes: 0, path };
    try {
      this.rules.onFileStart?.(part);
      if (!this.sawFile) this.rules.checkEarlyFields?.(this.fields);
    } catch (err) {
      stream.resume();
      this.fail(asGatewayError(err));
      return;
    }
    this.sawFile = true;
    this.files.push(part);
    this.entries.push({ kind: 'file', part });
    this.openParts++;
    const limit = this.rules.fileLimit(field);
    // A roomy buffer: the caller's chunks are written without pausing its socket after each one.
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: 1024 * 1024 });
    this.spooled.add(path);
    this.writers.set(out, path);
    out.on('error', () => this.fail(new RequestError(500, 'The gateway could not spool the upload.')));
    out.on('drain', () => stream.resume());
    stream.on('data', (chunk: Buffer) => {
      if (this.error) return;
      part.bytes += chunk.length;
      if (part.bytes > limit) {
        this.fail(badRequest(`${field} must be at most ${formatBytes(limit)}.`, field));
        stream.resume();
        return;
      }
      if (!out.write(chunk)) stream.pause();
    });
    stream.once('end', () => {
      if (this.error) return;
      out.end();
    });
    out.once('finish', () => {
      this.writers.delete(out);
      this.openParts--;
      this.maybeFinish();
    });
  }

  private onParsed(): void {
    if (this.error) return;
    this.parsed = true;
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.error || !this.parsed || this.openParts > 0 || this.checked) return;
    let check: void | Promise<void>;
    try {
      check = this.rules.finish(this.fields, this.files);
    } catch (err) {
      this.fail(asGatewayError(err));
      return;
    }
    Promise.resolve(check).then(
      () => {
        if (this.error) return;
        this.checked = true;
        this.resolveReady();
      },
      (err) => this.fail(asGatewayError(err)),
    );
  }
}

/** The pieces of a form, file parts read from their spooled copies. */
async function* streamPieces(pieces: Array<Buffer | FilePart>): AsyncGenerator<Buffer> {
  for (const piece of pieces) {
    if (Buffer.isBuffer(piece)) {
      yield piece;
      continue;
    }
    const file = createReadStream(piece.path, { highWaterMark: 256 * 1024 });
    let sent = 0;
    for await (const chunk of file) {
      sent += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    // The length was announced: a spooled file that changed size would make a broken request.
    if (sent !== piece.bytes) throw new Error(`the spooled part ${piece.field} changed size`);
  }
}

function asGatewayError(err: unknown): GatewayError {
  return err instanceof Error && typeof (err as { status?: unknown }).status === 'number' ? err : new RequestError(500, 'The upload could not be checked.');
}

export function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`;
}
