import { badRequest } from '../../../../contract/errors/gateway-error.js';
/**
 * The checked multipart form of a call (the validate stage read and spooled it whole), as it
 * came or rewritten for the provider: a fresh stream each time, with its exact length.
 */
export function uploadForm(call, rewrite) {
    const upload = call.body;
    if (typeof upload?.form !== 'function')
        throw badRequest('The request must be multipart/form-data.', 'content-type');
    return upload.form(rewrite);
}
//# sourceMappingURL=upload-form.js.map