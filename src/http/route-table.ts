import type { Operation } from '../engine/operations.js';

/** A provider-routed route of the contract (section 2). */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Express-style path, e.g. /v1/files/:file_id. */
  path: string;
  /** The contract's spelling, e.g. "POST /v1/files/{file_id}". */
  key: string;
  operation: Operation;
  body: 'json' | 'multipart' | 'none';
  /** Request schema under schema/requests/, for JSON and multipart routes. */
  schema?: string;
}

function route(method: RouteSpec['method'], path: string, operation: Operation, body: RouteSpec['body'], schema?: string): RouteSpec {
  return { method, path: path.replace(/\{(\w+)\}/g, ':$1'), key: `${method} ${path}`, operation, body, schema };
}

export const PROVIDER_ROUTES: RouteSpec[] = [
  route('POST', '/v1/chat/completions', 'chat.completions', 'json', 'requests/chat-completions.schema.json'),
  route('POST', '/v1/completions', 'completions', 'json', 'requests/completions.schema.json'),
  route('POST', '/v1/embeddings', 'embeddings', 'json', 'requests/embeddings.schema.json'),
  route('POST', '/v1/images/generations', 'images.generations', 'json', 'requests/images-generations.schema.json'),
  route('POST', '/v1/images/edits', 'images.edits', 'multipart', 'requests/images-edits.schema.json'),
  route('POST', '/v1/audio/speech', 'audio.speech', 'json', 'requests/audio-speech.schema.json'),
  route('POST', '/v1/audio/transcriptions', 'audio.transcriptions', 'multipart', 'requests/audio-transcriptions.schema.json'),
  route('POST', '/v1/audio/translations', 'audio.translations', 'multipart', 'requests/audio-translations.schema.json'),
  route('POST', '/v1/files', 'files.create', 'multipart', 'requests/files-upload.schema.json'),
  route('GET', '/v1/files', 'files.list', 'none'),
  route('GET', '/v1/files/{file_id}', 'files.retrieve', 'none'),
  route('DELETE', '/v1/files/{file_id}', 'files.delete', 'none'),
  route('GET', '/v1/files/{file_id}/content', 'files.content', 'none'),
  route('POST', '/v1/batches', 'batches.create', 'json', 'requests/batches-create.schema.json'),
  route('GET', '/v1/batches', 'batches.list', 'none'),
  route('GET', '/v1/batches/{batch_id}', 'batches.retrieve', 'none'),
  route('POST', '/v1/batches/{batch_id}/cancel', 'batches.cancel', 'none'),
  route('POST', '/v1/fine_tuning/jobs', 'fine_tuning.jobs.create', 'json', 'requests/fine-tuning-jobs-create.schema.json'),
  route('GET', '/v1/fine_tuning/jobs', 'fine_tuning.jobs.list', 'none'),
  route('GET', '/v1/fine_tuning/jobs/{job_id}', 'fine_tuning.jobs.retrieve', 'none'),
  route('POST', '/v1/fine_tuning/jobs/{job_id}/cancel', 'fine_tuning.jobs.cancel', 'none'),
  route('GET', '/v1/fine_tuning/jobs/{job_id}/events', 'fine_tuning.jobs.events', 'none'),
  route('GET', '/v1/models', 'models.list', 'none'),
];
