import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { badRequest, RequestError } from '../../errors/request-error.js';
import { formHeaderBytes, quoteFormValue } from './multipart-writer.js';
const FIELD_LIMIT = 1024 * 1024;
/** Bytes read and dropped after a refusal before the connection is closed. */
const DRAIN_LIMIT = 64 * 1024 * 1024;
let defaultSpool;
/** Makes (if needed) and returns a spool folder; without one, <tmp>/ai-gateway-uploads. */
export function spoolDirectory(dir) {
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
    req;
    rules;
    fields = {};
    files = [];
    /** Resolves once the whole body was read, spooled and checked; rejects with the first problem. */
    ready;
    entries = [];
    spooled = new Set();
    /** Temporary files still being written, and their paths. */
    writers = new Map();
    spoolDir;
    error;
    parsed = false;
    checked = false;
    disposed = false;
    openParts = 0;
    sawFile = false;
    dropped = 0;
    parserPaused = false;
    bb;
    resolveReady;
    rejectReady;
    constructor(req, rules, options = {}) {
        this.req = req;
        this.rules = rules;
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
            if (!req.complete)
                this.fail(badRequest('The upload was cut off.', 'body'));
        });
        let bb;
        try {
            bb = busboy({ headers: req.headers, limits: { fieldSize: FIELD_LIMIT, fields: 50, parts: 60, files: 10 } });
        }
        catch {
            this.fail(badRequest('The request must be multipart/form-data with a boundary.', 'content-type'));
            return;
        }
        this.bb = bb;
        bb.on('field', (name, value, info) => this.onField(name, value, info.valueTruncated));
        bb.on('file', (name, stream, info) => this.onFile(name, stream, info));
        bb.on('close', () => this.onParsed());
        bb.on('error', (err) => this.fail(badRequest(`The multipart body is malformed: ${err.message}.`, 'body')));
        bb.on('fieldsLimit', () => this.fail(badRequest('The form has too many fields.', 'body')));
        bb.on('partsLimit', () => this.fail(badRequest('The form has too many parts.', 'body')));
        bb.on('filesLimit', () => this.fail(badRequest('The form has too many files.', 'body')));
        bb.on('drain', () => this.resumeParser());
        req.on('data', (chunk) => this.onChunk(chunk));
        req.once('end', () => {
            if (!this.error)
                bb.end();
        });
    }
    /** The first problem, once there is one. */
    get failure() {
        return this.error;
    }
    /**
     * The form to send (after `ready`): every part in the order it came, with a fresh boundary,
     * rewritten for the provider when asked; file bytes stream from their spooled copies.
     */
    form(rewrite = {}) {
        if (!this.checked)
            throw new Error('the upload is not checked yet: await ready first');
        if (this.disposed)
            throw new RequestError(500, 'The upload is no longer available.');
        const boundary = `----gateway-${randomBytes(12).toString('hex')}`;
        const pieces = [];
        const field = (name, value) => {
            pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteFormValue(name)}"\r\n\r\n${value}\r\n`, 'utf8'));
        };
        for (const entry of this.entries) {
            if (entry.kind === 'field') {
                const out = rewrite.field ? rewrite.field(entry.name, entry.value) : [[entry.name, entry.value]];
                for (const [n, v] of out)
                    field(n, v);
                continue;
            }
            const part = entry.part;
            const mapped = rewrite.file ? rewrite.file(part) : { field: part.field };
            for (const [n, v] of mapped.before ?? [])
                field(n, v);
            pieces.push(formHeaderBytes(boundary, mapped.field, part.filename, part.mimeType), part, Buffer.from('\r\n'));
        }
        for (const [n, v] of rewrite.extra ?? [])
            field(n, v);
        pieces.push(Buffer.from(`--${boundary}--\r\n`));
        let length = 0;
        for (const piece of pieces)
            length += Buffer.isBuffer(piece) ? piece.length : piece.bytes;
        const body = Readable.from(streamPieces(pieces), { objectMode: false, highWaterMark: 64 * 1024 });
        return { body, contentType: `multipart/form-data; boundary=${boundary}`, contentLength: length };
    }
    /** The form rewritten for a provider (after `ready`). */
    rebuild(rewrite = {}) {
        return this.form(rewrite);
    }
    /** Moves the (one) file part named `field` to `path`, where the gateway keeps it (after `ready`). */
    async toDisk(field, path) {
        await this.ready;
        const part = this.files.find((f) => f.field === field);
        if (!part)
            throw badRequest(`The form has no ${field} file.`, field);
        try {
            await rename(part.path, path);
        }
        catch (err) {
            if (err.code !== 'EXDEV')
                throw err;
            await copyFile(part.path, path);
            await rm(part.path, { force: true });
        }
        this.spooled.delete(part.path);
        part.path = path;
        return part;
    }
    /** The request is over: a form not read to its end is refused, and every temporary file goes. */
    dispose() {
        if (!this.error && !this.checked)
            this.fail(badRequest('The upload was not used.', 'body'));
        if (this.disposed)
            return;
        this.disposed = true;
        this.removeSpooled();
    }
    /** Records the first problem: parsing stops, spooled parts are removed, `ready` rejects with it. */
    fail(err) {
        if (this.error)
            return;
        this.error = err;
        this.removeSpooled();
        this.rejectReady(err);
        // Keep reading (and dropping) what the caller still sends, so that it gets the answer.
        if (this.req.isPaused())
            this.req.resume();
    }
    removeSpooled() {
        // A file still being written (maybe not even open yet) is removed once its stream has closed.
        for (const [writer, path] of this.writers) {
            this.spooled.delete(path);
            writer.once('close', () => void rm(path, { force: true }).catch(() => undefined));
            writer.destroy();
        }
        this.writers.clear();
        for (const path of this.spooled)
            void rm(path, { force: true }).catch(() => undefined);
        this.spooled.clear();
    }
    onChunk(chunk) {
        if (this.error || !this.bb) {
            // Dropped; a caller that keeps sending long after the answer is cut off.
            this.dropped += chunk.length;
            if (this.dropped > DRAIN_LIMIT)
                this.req.destroy();
            return;
        }
        if (!this.bb.write(chunk))
            this.pauseParser();
    }
    pauseParser() {
        if (this.error || this.parserPaused)
            return;
        this.parserPaused = true;
        this.req.pause();
    }
    resumeParser() {
        if (!this.parserPaused)
            return;
        this.parserPaused = false;
        if (!this.req.readableEnded)
            this.req.resume();
    }
    onField(name, value, truncated) {
        if (this.error)
            return;
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
        if (existing === undefined)
            this.fields[key] = name.endsWith('[]') ? [value] : value;
        else
            this.fields[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
        this.entries.push({ kind: 'field', name, value });
    }
    onFile(field, stream, info) {
        // Whatever happens next, this part's stream errors (a body cut off inside it) are heard.
        stream.on('error', (err) => this.fail(badRequest(`The multipart body is malformed: ${err.message}.`, field || 'body')));
        if (!field && !this.error)
            this.fail(badRequest('A form part has no name (Content-Disposition: form-data; name="...").', 'body'));
        if (this.error || !field) {
            stream.resume();
            return;
        }
        const path = join(this.spoolDir, `upload-${randomBytes(12).toString('hex')}`);
        const part = { field, filename: info.filename ?? '', mimeType: info.mimeType ?? 'application/octet-stream', bytes: 0, path };
        try {
            this.rules.onFileStart?.(part);
            if (!this.sawFile)
                this.rules.checkEarlyFields?.(this.fields);
        }
        catch (err) {
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
        stream.on('data', (chunk) => {
            if (this.error)
                return;
            part.bytes += chunk.length;
            if (part.bytes > limit) {
                this.fail(badRequest(`${field} must be at most ${formatBytes(limit)}.`, field));
                stream.resume();
                return;
            }
            if (!out.write(chunk))
                stream.pause();
        });
        stream.once('end', () => {
            if (this.error)
                return;
            out.end();
        });
        out.once('finish', () => {
            this.writers.delete(out);
            this.openParts--;
            this.maybeFinish();
        });
    }
    onParsed() {
        if (this.error)
            return;
        this.parsed = true;
        this.maybeFinish();
    }
    maybeFinish() {
        if (this.error || !this.parsed || this.openParts > 0 || this.checked)
            return;
        let check;
        try {
            check = this.rules.finish(this.fields, this.files);
        }
        catch (err) {
            this.fail(asGatewayError(err));
            return;
        }
        Promise.resolve(check).then(() => {
            if (this.error)
                return;
            this.checked = true;
            this.resolveReady();
        }, (err) => this.fail(asGatewayError(err)));
    }
}
/** The pieces of a form, file parts read from their spooled copies. */
async function* streamPieces(pieces) {
    for (const piece of pieces) {
        if (Buffer.isBuffer(piece)) {
            yield piece;
            continue;
        }
        const file = createReadStream(piece.path, { highWaterMark: 256 * 1024 });
        let sent = 0;
        for await (const chunk of file) {
            sent += chunk.length;
            yield chunk;
        }
        // The length was announced: a spooled file that changed size would make a broken request.
        if (sent !== piece.bytes)
            throw new Error(`the spooled part ${piece.field} changed size`);
    }
}
function asGatewayError(err) {
    return err instanceof Error && typeof err.status === 'number' ? err : new RequestError(500, 'The upload could not be checked.');
}
export function formatBytes(n) {
    return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : `${n} bytes`;
}
//# sourceMappingURL=multipart-upload.js.map