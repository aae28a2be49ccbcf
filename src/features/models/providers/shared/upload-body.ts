import type { Readable } from 'node:stream';

/** One file part of an upload, as a provider sees it when it rewrites the form. */
export interface UploadFilePart {
  field: string;
  filename: string;
  mimeType: string;
  bytes: number;
}

/** How a provider wants the form sent when it is not passed through as it came. */
export interface UploadRewrite {
  /** A field as the provider names and spells it; [] drops it. Default: unchanged. */
  field?(name: string, value: string): Array<[string, string]>;
  /** The file part's field name, and fields to send just before it (they need its file name). */
  file?(part: UploadFilePart): { field: string; before?: Array<[string, string]> };
  /** Fields added at the end. */
  extra?: Array<[string, string]>;
}

/** A form ready to send: a fresh stream of it each time one is asked for, its type and exact length. */
export interface UploadForm {
  body: Readable;
  contentType: string;
  contentLength: number;
}

/**
 * The body of a multipart route (call.body), read whole and checked by the gateway before any
 * provider sees it (file parts spooled): `form` gives the form as it came, or rewritten for the
 * provider, as a fresh stream each time (so a retry or fallback sends it again).
 */
export interface UploadBody {
  /** The form's text fields (a field sent more than once: its values in order). */
  readonly fields?: Record<string, string | string[]>;
  form(rewrite?: UploadRewrite): UploadForm;
}
