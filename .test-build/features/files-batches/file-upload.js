import { join } from 'node:path';
import { badRequest } from '../../contract/errors/gateway-error.js';
import { FormSchema } from '../../kernel/http/multipart/form-fields.js';
/** Where file parts of uploads are kept while the form is checked: beside the files the gateway keeps (so a kept upload is moved, not copied). */
export function uploadSpoolPath(config) {
    return join(config.storage?.filesDir ?? './data/files', '.uploads');
}
/** Largest file accepted by POST /v1/files (OpenAI's own limit). */
export const UPLOAD_FILE_LIMIT = 512 * 1024 * 1024;
/** Rules of POST /v1/files: one `file` part (at most 512 MB, streamed), `purpose` per the schema. */
export function fileUploadRules(schemaFile) {
    const schema = new FormSchema(schemaFile);
    return () => ({
        fileLimit: () => UPLOAD_FILE_LIMIT,
        onFileStart(part) {
            if (part.field !== 'file')
                throw badRequest(`Unexpected file part ${part.field}: send the file as "file".`, part.field);
        },
        checkEarlyFields: (fields) => void schema.check(fields, true),
        finish(fields, files) {
            schema.check(fields);
            const parts = files.filter((f) => f.field === 'file');
            if (parts.length === 0)
                throw badRequest('file is required.', 'file');
            if (parts.length > 1)
                throw badRequest('Send one file.', 'file');
        },
    });
}
//# sourceMappingURL=file-upload.js.map