import { defineService } from './services.js';

/** Where the gateway is in its life: draining once shutdown began (/ready then answers 503). */
export interface Lifecycle {
  draining: boolean;
}

export const LIFECYCLE = defineService<Lifecycle>('lifecycle');
