import type { IncomingMessage } from 'node:http';
import { createWriteStream, type WriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { MultipartWriter } from './multipart-writer.js';

/** A text field as received; repeated names (`a[]`) collect into arrays. */
export type FormFields = Record<string, string | string[]>;

/** One file part: what its headers said, how many bytes it had, and (when kept) its bytes. */
export interface FilePart {
  field: string;
  filename: string;
  mimeType: string;
  bytes: number;
  /** The whole part, for parts the rules keep in memory (small images). */
  data?: Buffer;
}

/** What a route checks while its upload streams. Every hook may throw a GatewayError. */
export interface UploadRules {
  /** Largest file part, in bytes, by field name; `*` for the others. */
  fileLimit(field: string): number;
  /** File parts kept in memory for the final check (bounded by their limit). */
  keep?: string[];
  /** Checks a file part when its headers arrive (name, type). */
  onFileStart?(part: FilePart): void;
  /** Checks the fields that came before the first file (no required-field checks yet). */
  checkEarlyFields?(fields: FormFields): void;
  /**
   * Hold the whole form until it is checked (small uploads such as images): nothing reaches
   * the upstream before every rule passed. Otherwise the upstream request starts once the
   * first file part begins, and a later problem aborts it.
   */
  holdUntilChecked?: boolean;
  /** Checks everything once the body has ended. */
  finish(fields: FormFields, files: FilePart[]): void;
}

/** How a provider wants the form sent when it is not passed through as it came. */
export interface FormRewrite {
  /** A field as the provider names and spells it; [] drops it. Default: unchanged. */
  field?(name: string, value: string): Array<[string, string]>;
  /** The file part's field name, and fields to send just before it (they need its file name). */
  file?(part: FilePart): { field: string; before?: Array<[string, string]> };
  /** Fields added at the end. */
  extra?: Array<[string, string]>;
}

type Sink =
  | { kind: 'raw' }
  | { kind: 'rebuild'; writer: MultipartWriter; rewrite: FormRewrite }
  | { kind: 'disk'; field: string; path: string; file?: WriteStream };

const FIELD_LIMIT = 1024 * 1024;
/** Bytes read and dropped after a refusal before the connection is closed. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * A multipart request read as it streams: busboy parses it once, the rules check each part as
 * it arrives, and the bytes go on to exactly one sink, chosen after validation has begun:
 *
 * - `stream` (raw): the caller's bytes untouched (same boundary, same length), for providers
 *   that take OpenAI's form. The last chunk is held back until the whole body is checked, so
 *   the upstream never sees a complete request that the gateway would refuse;
 * - `rebuild(rewrite)`: a new form with a fresh boundary (fields renamed or added), file bytes
 *   streamed through as they arrive;
 * - `toDisk(field, path)`: the file part written to a file (the gateway keeps it).
 *
 * Nothing but kept parts (images under 4 MB) and at most one request chunk is ever held in
 * memory. A problem found after bytes went upstream destroys the sink with the GatewayError,
 * which aborts the upstream request; `done` rejects with it.
 */
export class MultipartUpload {
  readonly fields: FormFields = {};
  readonly files: FilePart[] = [];
  /** Resolves once the first file part begins (fields before it checked) or the body ended. */
  readonly ready: Promise<void>;
  /** Resolves when the whole body was read, checked and handed to the sink. */
  readonly done: Promise<void>;
  /** The caller's bytes as they came; reading it chooses the raw sink. */
  readonly stream: Readable;

  private sink?: Sink;
  private error?: GatewayError;
  private parsed = false;
  private pending: Buffer[] = [];
  private pendingFile: Array<{ part: FilePart; chunk?: Buffer; end?: boolean; start?: boolean }> = [];
  private held?: Buffer;
  private readonly pauses = new Set<string>();
  private readonly bb: busboy.Busboy;
  private resolveReady!: () => void;
  private rejectReady!: (err: GatewayError) => void;
  private resolveDone!: () => void;
  private rejectDone!: (err: GatewayError) => void;
  private readySettled = false;
  private openParts = 0;
  private dropped = 0;
  private deferredFields: Array<[string, string]> = [];

  constructor(private readonly req: IncomingMessage, private readonly rules: UploadRules) {
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
    const upload = this;
    this.stream = new (class extends Readable {
      override _read(): void {
        if (upload.sink) upload.resumeFor('sink');
        else upload.chooseRaw();
      }
    })();
    this.stream.on('error', () => undefined);
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fieldSize: FIELD_LIMIT, fields: 50, parts: 60 } });
    } catch {
      req.resume();
      this.bb = undefined as unknown as busboy.Busboy;
      this.fail(badRequest('The request must be multipart/form-data with a boundary.', 'content-type'));
      return;
    }
    this.bb = bb;
    bb.on('field', (name, value, info) => this.onField(name, value, info.valueTruncated));
    bb.on('file', (name, stream, info) => this.onFile(name, stream, info));
    bb.on('close', () => this.onParsed());
    bb.on('error', (err: Error) => this.fail(badRequest(`The multipart body is malformed: ${err.message}`, 'body')));
    bb.on('fieldsLimit', () => this.fail(badRequest('The form has too many fields.', 'body')));
    bb.on('partsLimit', () => this.fail(badRequest('The form has too many parts.', 'body')));
    req.on('data', (chunk: Buffer) => this.onChunk(chunk));
    req.once('end', () => {
      if (!this.error) bb.end();
    });
    const cutOff = () => {
      if (!req.complete) this.fail(badRequest('The upload was cut off.', 'body'));
    };
    req.once('aborted', cutOff);
    req.once('error', cutOff);
  }

  /** The first problem, once there is one. */
  get failure(): GatewayError | undefined {
    return this.error;
  }

  /** A new form with a fresh boundary, rewritten for a provider; file bytes stream through. */
  rebuild(rewrite: FormRewrite = {}): { body: Readable; contentType: string } {
    if (this.sink) throw new Error('the upload was already handed to another sink');
    const writer = new MultipartWriter();
    this.sink = { kind: 'rebuild', writer, rewrite };
    this.pending = [];
    if (this.error) writer.out.destroy(this.error);
    else {
      for (const [name, value] of Object.entries(this.fields)) this.writeField(name, value);
      this.flushPendingFile();
      this.watchDrain(writer.out, 'sink');
      if (this.parsed) this.finishSink();
    }
    this.resumeFor('sink-choice');
    return { body: writer.out, contentType: writer.contentType };
  }

  /** Writes the file part named `field` to `path`; `done` resolves once it is on disk. */
  toDisk(field: string, path: string): void {
    if (this.sink) throw new Error('the upload was already handed to another sink');
    this.sink = { kind: 'disk', field, path };
    this.pending = [];
    this.flushPendingFile();
    if (this.parsed) this.finishSink();
    this.resumeFor('sink-choice');
  }

  private chooseRaw(): void {
    this.sink = { kind: 'raw' };
    this.pendingFile = [];
    const chunks = this.pending;
    this.pending = [];
    for (const chunk of chunks) this.writeRaw(chunk);
    if (this.parsed) this.finishSink();
    this.resumeFor('sink-choice');
  }

  /** Passes the previous chunk on and holds this one back (it may end the form). */
  private writeRaw(chunk: Buffer): void {
    if (this.held && !this.stream.push(this.held)) this.pauseFor('sink');
    this.held = chunk;
  }

  private onChunk(chunk: Buffer): void {
    if (this.error) {
      // Dropped; a caller that keeps sending long after the answer is cut off.
      this.dropped += chunk.length;
      if (this.dropped > DRAIN_LIMIT) this.req.destroy();
      return;
    }
    if (!this.sink) this.pending.push(chunk);
    else if (this.sink.kind === 'raw') this.writeRaw(chunk);
    if (!this.bb.write(chunk)) {
      this.pauseFor('parser');
      this.bb.once('drain', () => this.resumeFor('parser'));
    }
  }

  private onField(name: string, value: string, truncated: boolean): void {
    if (this.error) return;
    if (truncated) {
      this.fail(badRequest(`The form field ${name} is longer than ${FIELD_LIMIT} bytes.`, name));
      return;
    }
    const key = name.endsWith('[]') ? name.slice(0, -2) : name;
    const existing = this.fields[key];
    if (name.endsWith('[]')) this.fields[key] = Array.isArray(existing) ? [...existing, value] : existing === undefined ? [value] : [existing, value];
    else if (existing !== undefined) this.fields[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    else this.fields[key] = value;
    if (this.sink?.kind === 'rebuild') {
      // busboy reports a field after a file part before that part's stream has ended.
      if (this.openParts > 0) this.deferredFields.push([name, value]);
      else this.writeField(name, value);
    }
  }

  private writeField(name: string, value: string | string[]): void {
    const sink = this.sink as Extract<Sink, { kind: 'rebuild' }>;
    for (const v of Array.isArray(value) ? value : [value]) {
      const out = sink.rewrite.field ? sink.rewrite.field(name, v) : [[name, v] as [string, string]];
      for (const [n, val] of out) sink.writer.field(n, val);
    }
  }

  private onFile(field: string, stream: Readable, info: busboy.FileInfo): void {
    if (this.error) {
      stream.resume();
      return;
    }
    const part: FilePart = { field, filename: info.filename ?? '', mimeType: info.mimeType ?? 'application/octet-stream', bytes: 0 };
    this.files.push(part);
    this.openParts++;
    try {
      this.rules.onFileStart?.(part);
      if (!this.readySettled) this.rules.checkEarlyFields?.(this.fields);
    } catch (err) {
      stream.resume();
      this.fail(asGatewayError(err));
      return;
    }
    const limit = this.rules.fileLimit(field);
    const keep = this.rules.keep?.includes(field);
    const kept: Buffer[] = [];
    this.toSink({ part, start: true });
    stream.on('data', (chunk: Buffer) => {
      if (this.error) return;
      part.bytes += chunk.length;
      if (part.bytes > limit) {
        this.fail(badRequest(`${field} must be at most ${formatBytes(limit)}.`, field));
        return;
      }
      if (keep) kept.push(chunk);
      this.toSink({ part, chunk });
    });
    stream.once('end', () => {
      this.openParts--;
      if (this.error) return;
      if (keep) part.data = Buffer.concat(kept);
      this.toSink({ part, end: true });
      if (this.parsed && this.openParts === 0) this.onParsed();
    });
    if (!this.readySettled && !this.rules.holdUntilChecked) {
      this.readySettled = true;
      if (!this.sink) this.pauseFor('sink-choice');
      this.resolveReady();
    }
  }

  private toSink(event: { part: FilePart; chunk?: Buffer; end?: boolean; start?: boolean }): void {
    const sink = this.sink;
    if (!sink) {
      this.pendingFile.push(event);
      return;
    }
    if (sink.kind === 'raw') return;
    if (sink.kind === 'rebuild') {
      const { writer, rewrite } = sink;
      if (event.start) {
        const mapped = rewrite.file ? rewrite.file(event.part) : { field: event.part.field };
        for (const [n, v] of mapped.before ?? []) writer.field(n, v);
        writer.fileStart(mapped.field, event.part.filename, event.part.mimeType);
      }
      if (event.chunk && !writer.write(event.chunk)) this.pauseFor('sink');
      if (event.end) {
        writer.fileEnd();
        if (this.openParts === 0) {
          const deferred = this.deferredFields;
          this.deferredFields = [];
          for (const [n, v] of deferred) this.writeField(n, v);
        }
      }
      return;
    }
    if (event.part.field !== sink.field) return;
    if (event.start) {
      if (sink.file) {
        this.fail(badRequest(`Send one ${sink.field} part only.`, sink.field));
        return;
      }
      sink.file = createWriteStream(sink.path);
      sink.file.on('error', (err) => this.fail(new GatewayError('internal_error', `The gateway could not store the file: ${err.message}`)));
      this.watchDrain(sink.file, 'sink');
    }
    if (event.chunk && !sink.file!.write(event.chunk)) this.pauseFor('sink');
  }

  private flushPendingFile(): void {
    const events = this.pendingFile;
    this.pendingFile = [];
    for (const event of events) this.toSink(event);
  }

  private watchDrain(stream: NodeJS.WritableStream, reason: string): void {
    stream.on('drain', () => this.resumeFor(reason));
  }

  private onParsed(): void {
    if (this.error) return;
    this.parsed = true;
    if (this.openParts > 0) return;
    try {
      this.rules.finish(this.fields, this.files);
    } catch (err) {
      this.fail(asGatewayError(err));
      return;
    }
    if (!this.readySettled) {
      this.readySettled = true;
      this.resolveReady();
    }
    if (this.sink) this.finishSink();
  }

  private finishSink(): void {
    const sink = this.sink!;
    if (this.error || !this.parsed || this.openParts > 0) return;
    if (sink.kind === 'raw') {
      if (this.held) this.stream.push(this.held);
      this.held = undefined;
      this.stream.push(null);
      this.resolveDone();
    } else if (sink.kind === 'rebuild') {
      for (const [n, v] of sink.rewrite.extra ?? []) sink.writer.field(n, v);
      sink.writer.end();
      this.resolveDone();
    } else if (!sink.file) {
      this.fail(badRequest(`The form has no ${sink.field} file.`, sink.field));
    } else {
      sink.file.end(() => this.resolveDone());
    }
  }

  /** The request ended without the upload being used (an earlier stage answered): drop the rest. */
  abandon(): void {
    if (!this.error && !this.parsed) this.fail(badRequest('The upload was not used.', 'body'));
  }

  /** Records the first problem: the sink is destroyed with it (aborting an upstream request). */
  fail(err: GatewayError): void {
    if (this.error) return;
    this.error = err;
    this.pauses.clear();
    this.pending = [];
    this.pendingFile = [];
    this.held = undefined;
    const sink = this.sink;
    if (sink?.kind === 'rebuild') sink.writer.out.destroy(err);
    else if (sink?.kind === 'disk') sink.file?.destroy();
    else this.stream.destroy(err);
    this.rejectReady(err);
    this.rejectDone(err);
    // Keep reading (and dropping) what the caller still sends, so that it gets the answer.
    if (this.req.isPaused()) this.req.resume();
  }

  private pauseFor(reason: string): void {
    if (this.error) return;
    this.pauses.add(reason);
    this.req.pause();
  }

  private resumeFor(reason: string): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0 && !this.req.readableEnded) this.req.resume();
  }
}

function asGatewayError(err: unknown): GatewayError {
  return isGatewayError(err) ? err : new GatewayError('internal_error', 'The upload could not be checked.', { cause: err });
}

export function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`;
}
