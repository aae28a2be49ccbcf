import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { GatewayBatchesStageConfig } from '../../generated/stages/gateway-batches.js';
import { schemaDocument } from '../../kernel/config/schema-validator.js';
import { defineStage } from '../../kernel/engine/stage.js';
import { BODY, RAW_BODY } from '../../kernel/engine/request-body.js';
import { UPSTREAM } from '../../kernel/engine/report.js';
import type { Operation } from '../../contract/operations.js';
import {
  GATEWAY_SERVED,
  PROVIDER,
  PROVIDER_KEY,
  TARGET,
  type ModelContext,
  PROVIDERS,
  type ProviderRegistry,
  BATCH_LINE,
  routingConfigs,
  type RoutingConfigs,
} from '../models/index.js';
import { badRequest, notFound, semanticError } from '../../contract/errors/gateway-error.js';
import { fileObject, GATEWAY_FILE_PREFIX, newFileId } from './gateway-files.js';
import { listBody, listQuery } from './list-page.js';
import { isUpload } from '../../kernel/http/multipart/upload-validator.js';
import { batchObject } from './batch-store.js';
import { credentialHeaders, GATEWAY_BATCH_PREFIX, ownerScope, servedByGateway } from './batch-mode.js';
import { FILES_BATCHES, type FilesBatches } from './files-batches-service.js';
import { RESPONSE } from '../../kernel/engine/context.js';

type GatewayContext = ModelContext;

const OPERATIONS = new Set<Operation>([
  'files.create',
  'files.list',
  'files.retrieve',
  'files.delete',
  'files.content',
  'batches.create',
  'batches.list',
  'batches.retrieve',
  'batches.cancel',
]);
const ENDPOINT_OPERATIONS: Record<string, Operation> = {
  '/v1/chat/completions': 'chat.completions',
  '/v1/completions': 'completions',
  '/v1/embeddings': 'embeddings',
};

/** A kept file's bytes; a read failure ends the answer (the edge closes it), never the process. */
function contentStream(path: string) {
  const stream = createReadStream(path);
  stream.on('error', () => undefined);
  return stream;
}

function json(ctx: GatewayContext, body: unknown, status = 200): void {
  ctx.response = { kind: 'json', status, body };
}

async function handle(ctx: GatewayContext, providers: ProviderRegistry, fb: FilesBatches, configs: () => RoutingConfigs): Promise<void> {
  const scope = ownerScope(ctx, configs().callerKeys(ctx));
  const provider = ctx.get(PROVIDER)!;
  ctx.set(TARGET, { provider, apiKey: ctx.get(PROVIDER_KEY), options: {} });
  ctx.set(UPSTREAM, provider);
  const headers = credentialHeaders(ctx);
  await fb.runner.offer(scope, headers);
  const { files, batches } = fb;
  switch (ctx.endpoint.operation) {
    case 'files.create': {
      const upload = ctx.get(BODY);
      if (!isUpload(upload)) throw badRequest('The upload must be multipart/form-data.', 'file');
      const temp = files.tempPath();
      let row;
      try {
        const part = await upload.toDisk('file', temp);
        const purpose = String(upload.fields.purpose);
        row = await files.add({ id: newFileId(), scope, provider, filename: part.filename || 'upload', purpose }, temp);
      } catch (err) {
        await files.removeTemp(temp);
        throw err;
      }
      return json(ctx, fileObject(row));
    }
    case 'files.list': {
      const { limit, after } = listQuery(ctx.query);
      const page = await files.list(scope, limit, after);
      return json(ctx, listBody(page.rows.map(fileObject), page.hasMore));
    }
    case 'files.retrieve':
    case 'files.delete':
    case 'files.content': {
      const id = ctx.params.file_id!;
      const file = await files.get(scope, id);
      if (!file) throw notFound(`No file ${id}.`, 'file_id');
      if (ctx.endpoint.operation === 'files.retrieve') return json(ctx, fileObject(file));
      if (ctx.endpoint.operation === 'files.delete') {
        await files.delete(scope, id);
        return json(ctx, { id, object: 'file', deleted: true });
      }
      ctx.response = {
        kind: 'binary',
        status: 200,
        contentType: 'application/octet-stream',
        headers: { 'content-length': String(file.bytes), 'content-disposition': `attachment; filename="${file.filename.replace(/"/g, '')}"` },
        body: contentStream(files.pathOf(file.id)),
      };
      return;
    }
    case 'batches.create': {
      const body = ctx.get(BODY) as { input_file_id: string; endpoint: string; completion_window: string; metadata?: Record<string, string> | null };
      if (!body.input_file_id.startsWith(GATEWAY_FILE_PREFIX)) {
        throw badRequest('A batch the gateway runs reads a file the gateway keeps: upload it through POST /v1/files with x-gateway-batch-mode: gateway.', 'input_file_id');
      }
      if (!(await files.get(scope, body.input_file_id))) throw notFound(`No file ${body.input_file_id}.`, 'input_file_id');
      const instance = providers.get(provider);
      if (instance && !instance.operations[ENDPOINT_OPERATIONS[body.endpoint]!]) {
        throw badRequest(`${provider} does not serve ${body.endpoint}.`, 'endpoint');
      }
      const row = await batches.create({
        id: `${GATEWAY_BATCH_PREFIX}${randomBytes(12).toString('hex')}`,
        scope,
        provider,
        endpoint: body.endpoint,
        input_file_id: body.input_file_id,
        completion_window: body.completion_window,
        metadata: body.metadata ? JSON.stringify(body.metadata) : null,
        credentials: fb.vault.seal(headers),
      });
      await fb.runner.start(row.id, headers);
      return json(ctx, batchObject(row));
    }
    case 'batches.list': {
      const { limit, after } = listQuery(ctx.query);
      const page = await batches.list(scope, limit, after);
      return json(ctx, listBody(page.rows.map(batchObject), page.hasMore));
    }
    case 'batches.retrieve': {
      const row = await batches.get(scope, ctx.params.batch_id!);
      if (!row) throw notFound(`No batch ${ctx.params.batch_id}.`, 'batch_id');
      return json(ctx, batchObject(row));
    }
    case 'batches.cancel': {
      const id = ctx.params.batch_id!;
      const row = await batches.get(scope, id);
      if (!row) throw notFound(`No batch ${id}.`, 'batch_id');
      if (row.status !== 'cancelling' && row.status !== 'cancelled') {
        if (!(await batches.transition(id, ['validating', 'in_progress'], 'cancelling'))) {
          throw semanticError(`A batch that is ${row.status} cannot be cancelled.`, 'batch_id');
        }
        await fb.runner.cancel((await batches.byId(id))!);
      }
      return json(ctx, batchObject((await batches.byId(id))!));
    }
    default:
      return;
  }
}

/**
 * Files and batches the gateway keeps and runs itself (contract section 5): requests with
 * x-gateway-batch-mode: gateway, for a provider without the API, or naming an id the gateway
 * issued. Everything else goes on to the provider.
 */
export default defineStage<GatewayBatchesStageConfig, GatewayContext>({
  name: 'gateway-batches',
  description: 'Serves files and batches the gateway keeps and runs itself.',
  schema: schemaDocument('stages/gateway-batches.schema.json'),
  requires: [PROVIDER],
  once: true,
  reads: [BODY, PROVIDER_KEY],
  writes: [TARGET, UPSTREAM, GATEWAY_SERVED, BATCH_LINE, BODY, RAW_BODY, RESPONSE],
  create(_config, services) {
    const fb = services.require(FILES_BATCHES);
    const providers = services.require(PROVIDERS);
    // The routing configs are compiled by the route stage (which reports their problems): read when first needed.
    let configs: RoutingConfigs | undefined;
    const routing = () => (configs ??= routingConfigs(services));
    return async (ctx, next) => {
      if (!OPERATIONS.has(ctx.endpoint.operation) || !servedByGateway(ctx, providers)) return next();
      ctx.set(GATEWAY_SERVED, true);
      await handle(ctx, providers, fb, routing);
    };
  },
});
