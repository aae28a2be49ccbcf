import type { GatewayContext } from '../../engine/context.js';
import { BODY } from '../../engine/request-body.js';
import { badRequest } from '../../errors/request-error.js';
import { formatBytes, MultipartUpload, spoolDirectory, type UploadRules } from './multipart-upload.js';

/** Room for the text fields and part headers around the files of a form. */
const FORM_OVERHEAD = 1024 * 1024;

export interface UploadLimits {
  /** Largest total of file bytes the route takes. */
  maxFileBytes: number;
  /** The parameter a too-large body is blamed on. */
  param: string;
  /** Where file parts are spooled while the form is checked (created on first use; default: the system's temporary folder). */
  spoolDir?: string;
}

/**
 * The validate stage's check of a multipart route: reads the whole form with the route's rules
 * (file parts spooled to temporary files, never held in memory) and waits until every part is
 * checked, so nothing reaches an upstream before the form is known good, whatever the order of
 * its parts. The BODY slot holds the MultipartUpload: providers send `body.form()`, the gateway's
 * own file store takes `body.toDisk(...)`. A declared Content-Length beyond what the rules allow
 * is refused before anything is read. The spooled files are removed when the request ends.
 */
export function uploadValidator(rules: () => UploadRules, limits: UploadLimits) {
  let spoolDir: string | undefined;
  return async (ctx: GatewayContext): Promise<void> => {
    const declared = Number(ctx.headers['content-length']);
    if (declared > limits.maxFileBytes + FORM_OVERHEAD) {
      throw badRequest(`${limits.param} must be at most ${formatBytes(limits.maxFileBytes)}.`, limits.param);
    }
    spoolDir ??= spoolDirectory(limits.spoolDir);
    const upload = new MultipartUpload(ctx.req, rules(), { spoolDir });
    // BODY is typed as the JSON object most routes hold: the upload's fields read as unknown there too.
    ctx.set(BODY, upload as unknown as Record<string, unknown>);
    ctx.res.once('close', () => upload.dispose());
    await upload.ready;
  };
}

export function isUpload(body: unknown): body is MultipartUpload {
  return body instanceof MultipartUpload;
}
