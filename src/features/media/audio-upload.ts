import { badRequest, semanticError } from '../../contract/errors/gateway-error.js';
import { FormSchema } from '../../kernel/http/multipart/form-fields.js';
import type { FilePart, UploadRules } from '../../kernel/http/multipart/multipart-upload.js';

/** Audio file size limit of transcriptions and translations. */
export const AUDIO_FILE_LIMIT = 25 * 1024 * 1024;
export const AUDIO_EXTENSIONS = ['mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'wav', 'webm'];
/** Content types that name one of the formats, for files sent without an extension. */
const AUDIO_TYPES = new Set([
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'video/mp4',
  'audio/x-m4a',
  'audio/m4a',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
  'audio/webm',
  'video/webm',
  'video/mpeg',
  'audio/mpga',
]);

function checkAudioFile(part: FilePart): void {
  if (part.field !== 'file') throw badRequest(`Unexpected file part ${part.field}: send the audio as "file".`, part.field);
  const dot = part.filename.lastIndexOf('.');
  const ext = dot >= 0 ? part.filename.slice(dot + 1).toLowerCase() : '';
  if (ext ? AUDIO_EXTENSIONS.includes(ext) : AUDIO_TYPES.has(part.mimeType.toLowerCase())) return;
  throw badRequest(`file must be one of ${AUDIO_EXTENSIONS.join(', ')} (got ${part.filename || part.mimeType}).`, 'file');
}

/**
 * Rules of POST /v1/audio/transcriptions and /v1/audio/translations: one `file` part in a
 * known audio format of at most 25 MB (counted while it streams), the text fields against
 * the request schema, and timestamp_granularities only with response_format verbose_json.
 */
export function audioUploadRules(schemaFile: string): () => UploadRules {
  const schema = new FormSchema(schemaFile);
  return () => ({
    fileLimit: () => AUDIO_FILE_LIMIT,
    onFileStart: checkAudioFile,
    checkEarlyFields: (fields) => void schema.check(fields, true),
    finish(fields, files) {
      const body = schema.check(fields);
      if (!files.some((f) => f.field === 'file')) throw badRequest('file is required.', 'file');
      if (body.timestamp_granularities !== undefined && body.response_format !== 'verbose_json') {
        throw semanticError('timestamp_granularities needs response_format verbose_json.', 'timestamp_granularities');
      }
    },
  });
}
