/** Quotes a form name or file name for a Content-Disposition header (no line breaks, quotes escaped). */
export function quoteFormValue(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\r\n\0]/g, ' ');
}

/** The header of one file part of a multipart/form-data body. */
export function formHeaderBytes(boundary: string, name: string, filename: string, mimeType: string): Buffer {
  const type = mimeType.replace(/[\r\n\0]/g, '') || 'application/octet-stream';
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoteFormValue(name)}"; filename="${quoteFormValue(filename)}"\r\nContent-Type: ${type}\r\n\r\n`,
    'utf8',
  );
}
