import type { GatewayFileStore } from '../files/gateway-files.js';
import type { BatchRunner } from './batch-runner.js';
import type { BatchStore } from './batch-store.js';
import type { CredentialVault } from './credential-vault.js';

export const FILES_BATCHES_EXTENSION = 'files-batches';

/** What the files-and-batches capability puts in services.extensions. */
export interface FilesBatches {
  files: GatewayFileStore;
  batches: BatchStore;
  runner: BatchRunner;
  vault: CredentialVault;
}
