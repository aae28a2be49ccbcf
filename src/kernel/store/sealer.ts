import { defineService } from '../engine/services.js';

/**
 * Seals values kept at rest (AES-256-GCM under secrets.key; provided when secrets.key is set):
 * `seal` encrypts, `open` decrypts (undefined when no key opens it or it was altered).
 */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string | undefined;
}

export const SEALER = defineService<Sealer>('sealer');
