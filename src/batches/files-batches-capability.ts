import type { Capability } from '../capability.js';
import type { CompiledPipeline } from '../engine/pipeline-compiler.js';
import { getExtension } from '../engine/services.js';
import { GatewayFileStore } from '../files/gateway-files.js';
import { fileUploadRules, UPLOAD_FILE_LIMIT } from '../files/file-upload.js';
import { IMAGE_LIMIT, imageEditRules } from '../images/image-edit-upload.js';
import { uploadValidator } from '../multipart/upload-validator.js';
import { registerBodyValidator } from '../stages/validate.js';
import { getStore } from '../store/store-capability.js';
import { AUDIO_FILE_LIMIT, audioUploadRules } from '../validation/audio-upload.js';
import { BatchRunner } from './batch-runner.js';
import { BatchStore } from './batch-store.js';
import { CredentialVault } from './credential-vault.js';
import { FILES_BATCHES_EXTENSION, type FilesBatches } from './files-batches-service.js';
import gatewayBatches from './gateway-batches-stage.js';
import { FILES_BATCHES_MIGRATIONS } from './migrations.js';

/** Uploads are checked as they stream (validate stage); the rules per route. */
function registerUploadChecks(): void {
  registerBodyValidator('POST /v1/images/edits', uploadValidator(imageEditRules('requests/images-edits.schema.json'), { maxFileBytes: 2 * IMAGE_LIMIT, param: 'image' }));
  registerBodyValidator('POST /v1/audio/transcriptions', uploadValidator(audioUploadRules('requests/audio-transcriptions.schema.json'), { maxFileBytes: AUDIO_FILE_LIMIT, param: 'file' }));
  registerBodyValidator('POST /v1/audio/translations', uploadValidator(audioUploadRules('requests/audio-translations.schema.json'), { maxFileBytes: AUDIO_FILE_LIMIT, param: 'file' }));
  registerBodyValidator('POST /v1/files', uploadValidator(fileUploadRules('requests/files-upload.schema.json'), { maxFileBytes: UPLOAD_FILE_LIMIT, param: 'file' }));
}

/**
 * Files, batches, fine-tuning, images and audio: streaming upload checks, the stages
 * `gateway-batches` (files and batches the gateway keeps and runs) and `resource-shapes`
 * (provider answers in the spec's shapes), the file store under storage.filesDir, and the
 * batch runner, which resumes unfinished batches once the server listens.
 */
export const filesBatchesCapability: Capability = {
  name: 'files-batches',
  async setup(services) {
    registerUploadChecks();
    services.stages.register(gatewayBatches);
    const store = getStore(services);
    await store.migrate(FILES_BATCHES_MIGRATIONS);
    const config = services.config;
    const files = new GatewayFileStore(store, config.storage?.filesDir ?? './data/files');
    const batches = new BatchStore(store);
    const vault = new CredentialVault(process.env.GATEWAY_SECRET_KEY || config.auth?.adminToken || undefined);
    const settings = (config.batches ?? {}) as { concurrency?: number; maxRateLimitWaits?: number; interruptedLines?: 'fail' | 'resend' };
    const runner = new BatchRunner({
      batches,
      files,
      vault,
      // The compiled pipelines, set by createGateway once they are compiled (after set-up).
      get pipelines() {
        return getExtension<Map<string, CompiledPipeline>>(services, 'pipelines') ?? new Map<string, CompiledPipeline>();
      },
      logger: services.logger,
      concurrency: settings.concurrency ?? 8,
      maxWaits: settings.maxRateLimitWaits ?? 5,
      maxWaitMs: 60_000,
      interrupted: settings.interruptedLines ?? 'fail',
      exclusive: store.dialect === 'sqlite',
      leaseMs: 30_000,
    });
    const fb: FilesBatches = { files, batches, runner, vault };
    services.extensions.set(FILES_BATCHES_EXTENSION, fb);
    services.closers.push(() => runner.stop(10_000));
  },
  async start(services) {
    await getExtension<FilesBatches>(services, FILES_BATCHES_EXTENSION)!.runner.resumeAll();
  },
};
