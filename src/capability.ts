import type { Express } from 'express';
import type { GatewayServices } from './engine/services.js';
import type { FinishHook } from './http/pipeline-handler.js';

/**
 * A capability of the gateway (routing, the tool-server endpoint, files and batches...): it
 * registers its stages and providers, adds services, and mounts its own HTTP routes. Each is
 * set up once at start-up, in the order of src/capabilities.ts.
 */
export interface Capability {
  name: string;
  /** Adds stages, providers and services; runs before plugins and pipelines are loaded. */
  setup?(services: GatewayServices): Promise<void> | void;
  /** Mounts routes that are not provider-routed pipelines (before the provider routes). */
  routes?(app: Express, services: GatewayServices): void;
  /** Runs after each provider-routed answer is written. */
  onFinish?: FinishHook;
  /** Starts background work once the server listens (batch runners, tool servers). */
  start?(services: GatewayServices): Promise<void> | void;
  /** Shutdown began: end long-lived streams that would never finish by themselves (in-flight requests still finish). */
  drain?(services: GatewayServices): Promise<void> | void;
}
