import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { ProviderCall } from '../provider.js';
import type { UploadBody, UploadForm, UploadRewrite } from './upload-body.js';

/**
 * The checked multipart form of a call (the validate stage read and spooled it whole), as it
 * came or rewritten for the provider: a fresh stream each time, with its exact length.
 */
export function uploadForm(call: ProviderCall, rewrite?: UploadRewrite): UploadForm {
  const upload = call.body as Partial<UploadBody> | undefined;
  if (typeof upload?.form !== 'function') throw badRequest('The request must be multipart/form-data.', 'content-type');
  return upload.form(rewrite);
}
