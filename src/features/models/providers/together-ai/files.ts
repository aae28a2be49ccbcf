import type { Operation } from '../../../../contract/operations.js';
import { fileDeleted, openAIFile } from '../../../../contract/openai/files.js';
import { objectOf, objectsOf } from '../../../../contract/json.js';
import { windowList } from '../../../../contract/openai/lists.js';
import type { OperationAdapter } from '../provider.js';
import { pathId, resourceAdapter } from '../shared/resource-adapter.js';
import { uploadForm } from '../shared/upload-form.js';

/** Together names OpenAI's "batch" purpose "batch-api". */
const toTogether = (purpose: string) => (purpose === 'batch' ? 'batch-api' : purpose);
const fromTogether = (purpose: string) => (purpose === 'batch-api' ? 'batch' : purpose);

/**
 * Together's files API (https://api.together.xyz/v1/files): uploads go to /files/upload and
 * need `file_name` beside the file (the form is rebuilt with it, the file streamed through);
 * lists are `{data}` without pagination (windowed here, newest first).
 */
export const togetherFiles: Partial<Record<Operation, OperationAdapter>> = {
  'files.create': resourceAdapter({
    method: 'POST',
    path: () => '/files/upload',
    multipart: (call) =>
      uploadForm(call, {
        field: (name, value) => [[name, name === 'purpose' ? toTogether(value) : value]],
        file: (part) => ({ field: 'file', before: [['file_name', part.filename || 'upload.jsonl']] }),
      }),
    response: (body) => openAIFile(body, fromTogether),
  }),
  'files.list': resourceAdapter({
    method: 'GET',
    path: () => '/files',
    response: (body, call) => {
      const files = objectsOf(objectOf(body).data).map((f) => openAIFile(f, fromTogether));
      files.sort((a, b) => b.created_at - a.created_at);
      return windowList(files, call.query);
    },
  }),
  'files.retrieve': resourceAdapter({ method: 'GET', path: (call) => `/files/${pathId(call, 'file_id')}`, response: (body) => openAIFile(body, fromTogether) }),
  'files.delete': resourceAdapter({ method: 'DELETE', path: (call) => `/files/${pathId(call, 'file_id')}`, response: (body, call) => fileDeleted(body, call.params.file_id!) }),
  'files.content': resourceAdapter({ method: 'GET', path: (call) => `/files/${pathId(call, 'file_id')}/content`, binary: true }),
};
