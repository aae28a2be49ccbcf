import { badRequest } from '../../../../contract/errors/gateway-error.js';
import type { ProviderCall } from '../provider.js';
import type { UploadBody, UploadForm, UploadRewrite } from './upload-body.js';

/**
 * The checked multipart form of a call (the validate stage read and spooled it whole), as it
 * came or rewritten for the provider: a fresh stream each time, with its exact length. The
 * target's override_params replace (or add) text fields, before the provider's own rewrite.
 */
export function uploadForm(call: ProviderCall, rewrite?: UploadRewrite): UploadForm {
  const upload = call.body as Partial<UploadBody> | undefined;
  if (typeof upload?.form !== 'function') throw badRequest('The request must be multipart/form-data.', 'content-type');
  const overrides = call.target.overrideParams;
  return upload.form(overrides ? withOverrides(rewrite ?? {}, overrides, upload.fields ?? {}) : rewrite);
}

/** `rewrite` with the text values of `overrides` in place of (or beside) the form's own fields. */
function withOverrides(rewrite: UploadRewrite, overrides: Record<string, unknown>, fields: Record<string, unknown>): UploadRewrite {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(overrides)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values.set(name, String(value));
  }
  if (values.size === 0) return rewrite;
  const own = rewrite.field;
  const spelled = (name: string, value: string): Array<[string, string]> => (own ? own(name, value) : [[name, value]]);
  const added = [...values].filter(([name]) => !Object.hasOwn(fields, name)).flatMap(([name, value]) => spelled(name, value));
  return {
    ...rewrite,
    field: (name, value) => spelled(name, values.get(name) ?? value),
    extra: [...added, ...(rewrite.extra ?? [])],
  };
}
