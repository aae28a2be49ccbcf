import type { GatewayServices } from './engine/services.js';

/**
 * A capability of the gateway (routing, the tool-server endpoint, files and batches...): it
 * adds extension kinds, built-in extensions (stages, providers, checks, auth modes) and
 * services. Each is set up once at start-up, in the order of src/capabilities.ts. Every route
 * it serves runs a pipeline of stages; a capability mounts no HTTP handler of its own.
 */
export interface Capability {
  name: string;
  /** Adds extension kinds, built-in extensions and services; runs before plugins are loaded. */
  setup?(services: GatewayServices): Promise<void> | void;
  /** Runs after plugins are loaded and before pipelines compile (what depends on every extension: providers, guardrails). */
  prepare?(services: GatewayServices): Promise<void> | void;
  /** Starts background work once the server listens (batch runners, tool servers). */
  start?(services: GatewayServices): Promise<void> | void;
  /** This config now serves new requests (once listening, and after each reload that swapped it in). */
  activate?(services: GatewayServices): void;
  /** Shutdown began: end long-lived streams that would never finish by themselves (in-flight requests still finish). */
  drain?(services: GatewayServices): Promise<void> | void;
}
