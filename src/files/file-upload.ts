import { badRequest } from '../errors/gateway-error.js';
import { FormSchema } from '../multipart/form-fields.js';
import type { UploadRules } from '../multipart/multipart-upload.js';

/** Largest file accepted by POST /v1/files (OpenAI's own limit). */
export const UPLOAD_FILE_LIMIT = 512 * 1024 * 1024;

/** Rules of POST /v1/files: one `file` part (at most 512 MB, streamed), `purpose` per the schema. */
export function fileUploadRules(schemaFile: string): () => UploadRules {
  const schema = new FormSchema(schemaFile);
  return () => ({
    fileLimit: () => UPLOAD_FILE_LIMIT,
    onFileStart(part) {
      if (part.field !== 'file') throw badRequest(`Unexpected file part ${part.field}: send the file as "file".`, part.field);
    },
    checkEarlyFields: (fields) => void schema.check(fields, true),
    finish(fields, files) {
      schema.check(fields);
      const parts = files.filter((f) => f.field === 'file');
      if (parts.length === 0) throw badRequest('file is required.', 'file');
      if (parts.length > 1) throw badRequest('Send one file.', 'file');
    },
  });
}
