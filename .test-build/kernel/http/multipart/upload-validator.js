import { BODY } from '../../engine/request-body.js';
import { badRequest } from '../../errors/request-error.js';
import { formatBytes, MultipartUpload, spoolDirectory } from './multipart-upload.js';
/** Room for the text fields and part headers around the files of a form. */
const FORM_OVERHEAD = 1024 * 1024;
/**
 * The validate stage's check of a multipart route: reads the whole form with the route's rules
 * (file parts spooled to temporary files, never held in memory) and waits until every part is
 * checked, so nothing reaches an upstream before the form is known good, whatever the order of
 * its parts. The BODY slot holds the MultipartUpload: providers send `body.form()`, the gateway's
 * own file store takes `body.toDisk(...)`. A declared Content-Length beyond what the rules allow
 * is refused before anything is read. The spooled files are removed when the request ends.
 */
export function uploadValidator(rules, limits) {
    let spoolDir;
    return async (ctx) => {
        const declared = Number(ctx.headers['content-length']);
        if (declared > limits.maxFileBytes + FORM_OVERHEAD) {
            throw badRequest(`${limits.param} must be at most ${formatBytes(limits.maxFileBytes)}.`, limits.param);
        }
        spoolDir ??= spoolDirectory(limits.spoolDir);
        const upload = new MultipartUpload(ctx.req, rules(), { spoolDir });
        ctx.set(BODY, upload);
        ctx.res.once('close', () => upload.dispose());
        await upload.ready;
    };
}
export function isUpload(body) {
    return body instanceof MultipartUpload;
}
//# sourceMappingURL=upload-validator.js.map