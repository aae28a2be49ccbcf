import busboy from 'busboy';
import { Readable } from 'node:stream';
import type { ReceivedRequest } from './fake-upstream.js';

export interface ParsedForm {
  fields: Record<string, string[]>;
  files: Array<{ field: string; filename: string; mimeType: string; data: Buffer }>;
}

/** Parses the multipart body a fake upstream received. */
export function parseForm(req: ReceivedRequest): Promise<ParsedForm> {
  return new Promise((resolve, reject) => {
    const form: ParsedForm = { fields: {}, files: [] };
    const bb = busboy({ headers: req.headers });
    bb.on('field', (name, value) => (form.fields[name] ??= []).push(value));
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => form.files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    bb.on('close', () => resolve(form));
    bb.on('error', reject);
    Readable.from([req.body]).pipe(bb);
  });
}
