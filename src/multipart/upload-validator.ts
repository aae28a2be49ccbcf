import type { GatewayContext } from '../engine/context.js';
import { badRequest } from '../errors/gateway-error.js';
import { formatBytes, MultipartUpload, type UploadRules } from './multipart-upload.js';

/** Room for the text fields and part headers around the files of a form. */
const FORM_OVERHEAD = 1024 * 1024;

/**
 * The validate stage's check of a multipart route: starts reading the form with the route's
 * rules and waits until the fields before the first file are checked (or the form ended).
 * `ctx.body` becomes the MultipartUpload: providers read `body.stream` (the caller's bytes)
 * or `body.rebuild(...)`, the gateway's own file store `body.toDisk(...)`. A declared
 * Content-Length beyond what the rules allow is refused before anything is read.
 */
export function uploadValidator(rules: () => UploadRules, limits: { maxFileBytes: number; param: string }) {
  return async (ctx: GatewayContext): Promise<void> => {
    const declared = Number(ctx.headers['content-length']);
    if (declared > limits.maxFileBytes + FORM_OVERHEAD) {
      throw badRequest(`${limits.param} must be at most ${formatBytes(limits.maxFileBytes)}.`, limits.param);
    }
    const upload = new MultipartUpload(ctx.req, rules());
    ctx.body = upload;
    ctx.bodyRead = true;
    ctx.res.once('close', () => upload.abandon());
    await upload.ready;
  };
}

export function isUpload(body: unknown): body is MultipartUpload {
  return body instanceof MultipartUpload;
}
