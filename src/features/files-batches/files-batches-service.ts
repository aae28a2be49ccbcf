import type { GatewayFileStore } from './gateway-files.js';
import type { BatchRunner } from './batch-runner.js';
import type { BatchStore } from './batch-store.js';
import type { CredentialVault } from './credential-vault.js';
import { defineService } from '../../kernel/engine/services.js';

/** What the files-and-batches capability provides. */
export interface FilesBatches {
  files: GatewayFileStore;
  batches: BatchStore;
  runner: BatchRunner;
  vault: CredentialVault;
}

export const FILES_BATCHES = defineService<FilesBatches>('files-batches');
