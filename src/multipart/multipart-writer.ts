import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';

/** Quotes a form name or file name for a Content-Disposition header. */
function quote(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r|\n/g, ' ');
}

/**
 * Writes a multipart/form-data body part by part into `out` (a node stream the upstream
 * request reads), with a fresh boundary. File bytes are written as they arrive.
 */
export class MultipartWriter {
  readonly boundary = `----gateway-${randomBytes(12).toString('hex')}`;
  readonly out = new PassThrough();

  get contentType(): string {
    return `multipart/form-data; boundary=${this.boundary}`;
  }

  field(name: string, value: string): void {
    this.out.write(`--${this.boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`);
  }

  fileStart(name: string, filename: string, mimeType: string): void {
    this.out.write(
      `--${this.boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"; filename="${quote(filename)}"\r\nContent-Type: ${mimeType.replace(/\r|\n/g, '')}\r\n\r\n`,
    );
  }

  /** File bytes; false when the reader is behind (wait for 'drain' on `out`). */
  write(chunk: Buffer): boolean {
    return this.out.write(chunk);
  }

  fileEnd(): void {
    this.out.write('\r\n');
  }

  end(): void {
    this.out.end(`--${this.boundary}--\r\n`);
  }
}
