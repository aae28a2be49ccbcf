import type { ValidateFunction } from 'ajv';
import type { ValidateStageConfig } from '../generated/stages/validate.js';
import { firstProblem, schemaDocument, validatorFor } from '../kernel/config/schema-validator.js';
import type { GatewayContext } from '../kernel/engine/context.js';
import { BODY, ensureJsonBody } from '../kernel/engine/request-body.js';
import { defineStage } from '../kernel/engine/stage.js';
import { uploadValidator } from '../kernel/http/multipart/upload-validator.js';
import { badRequest } from '../contract/errors/gateway-error.js';
import { PROVIDER_ROUTES } from '../contract/routes.js';
import { SEMANTIC_RULES, type ModelContext } from '../features/models/index.js';
import { fileUploadRules, UPLOAD_FILE_LIMIT, uploadSpoolPath } from '../features/files-batches/index.js';
import { AUDIO_FILE_LIMIT, audioUploadRules, IMAGE_LIMIT, imageEditRules } from '../features/media/index.js';

/**
 * Checks of request parts no schema reaches: the uploads of multipart routes, read whole (file
 * parts spooled to `spoolDir`) and checked before anything goes upstream.
 */
function uploadChecks(spoolDir: string): Record<string, (ctx: GatewayContext) => Promise<void>> {
  return {
    'POST /v1/images/edits': uploadValidator(imageEditRules('requests/images-edits.schema.json'), { maxFileBytes: 2 * IMAGE_LIMIT, param: 'image', spoolDir }),
    'POST /v1/audio/transcriptions': uploadValidator(audioUploadRules('requests/audio-transcriptions.schema.json'), { maxFileBytes: AUDIO_FILE_LIMIT, param: 'file', spoolDir }),
    'POST /v1/audio/translations': uploadValidator(audioUploadRules('requests/audio-translations.schema.json'), { maxFileBytes: AUDIO_FILE_LIMIT, param: 'file', spoolDir }),
    'POST /v1/files': uploadValidator(fileUploadRules('requests/files-upload.schema.json'), { maxFileBytes: UPLOAD_FILE_LIMIT, param: 'file', spoolDir }),
  };
}

const LIST_OPERATIONS = new Set(['files.list', 'batches.list', 'fine_tuning.jobs.list', 'fine_tuning.jobs.events', 'models.list']);

function checkListQuery(query: URLSearchParams): void {
  const limit = query.get('limit');
  if (limit !== null && (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)) {
    throw badRequest('limit must be an integer from 1 to 100.', 'limit');
  }
  const after = query.get('after');
  if (after !== null && after.trim() === '') throw badRequest('after must be an id.', 'after');
}

/**
 * Request validation before anything goes upstream: the body against its schema in
 * schema/requests/ (compiled once, here), then the semantic rules (422), uploads read whole,
 * then list query parameters. The first problem is answered, with its `param`.
 */
export default defineStage<ValidateStageConfig, ModelContext>({
  name: 'validate',
  description: 'Validates the request body and query against the schemas and rules.',
  schema: schemaDocument('stages/validate.schema.json'),
  once: true,
  reads: [BODY],
  create(config, services) {
    const validators = new Map<string, ValidateFunction>();
    for (const route of PROVIDER_ROUTES) if (route.schema && route.body === 'json') validators.set(route.key, validatorFor(route.schema));
    const limit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    const semantic = config.semantic !== false;
    const uploads = uploadChecks(uploadSpoolPath(services.config));
    return async (ctx, next) => {
      const route = ctx.endpoint;
      if (route.body === 'json') {
        await ensureJsonBody(ctx, limit);
        const body = ctx.get(BODY);
        const validate = validators.get(route.key);
        if (validate && !validate(body)) {
          const { key, message } = firstProblem(validate.errors)!;
          throw badRequest(`${key || 'body'}: ${message}`, key || 'body');
        }
        if (semantic) SEMANTIC_RULES[route.operation]?.(body!);
      } else if (route.body === 'multipart') {
        const upload = uploads[route.key];
        if (upload) await upload(ctx);
      }
      if (LIST_OPERATIONS.has(route.operation)) checkListQuery(ctx.query);
      await next();
    };
  },
});
