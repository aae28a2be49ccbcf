import type { GatewayConfig } from '../../generated/gateway.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { ErrorMapping } from '../errors/answer-error.js';
import type { ExtensionKinds } from './extension.js';
import type { StageRegistry } from './stage-registry.js';
import { KeptResources } from './kept-resources.js';
import { KnownLabels } from '../observability/known-labels.js';

/** A typed place for a long-lived service shared by stages (store, cache, limiter, token service...). */
export interface ServiceSlot<T> {
  readonly name: string;
  readonly index: number;
  readonly __type?: T;
}

let nextService = 0;

/** Defines a service slot; define each once, beside the code that provides the service. */
export function defineService<T>(name: string): ServiceSlot<T> {
  return Object.freeze({ name, index: nextService++ });
}

/**
 * Long-lived parts shared by every pipeline, built once at start-up and handed to each stage
 * factory: the config, logging and metrics, the upstream HTTP client, the registries of every
 * extension kind, readiness checks and closers, and typed services the capabilities provide.
 */
export class GatewayServices {
  /** Named readiness checks for /ready; all must be true. */
  readonly readiness = new Map<string, () => boolean>();
  /** Called at shutdown, last registered first. */
  readonly closers: Array<() => Promise<void> | void> = [];
  /** Long-lived resources a reload may take over when their settings did not change (see kept-resources.ts). */
  resources = new KeptResources();
  /** The label values this config's metrics may show (features register them as they set up). */
  readonly labels = new KnownLabels();
  private readonly provided: unknown[] = [];

  constructor(
    readonly config: GatewayConfig,
    readonly logger: Logger,
    readonly metrics: Metrics,
    readonly upstream: UpstreamClient,
    readonly kinds: ExtensionKinds,
    /** How any failure becomes an answerable error (the contract's catalogue, given by the composition root). */
    readonly mapError: ErrorMapping,
  ) {}

  /** The registry of stages (the extension kind `stage`). */
  get stages(): StageRegistry {
    return this.kinds.get('stage') as StageRegistry;
  }

  provide<T>(slot: ServiceSlot<T>, value: T): T {
    this.provided[slot.index] = value;
    return value;
  }

  get<T>(slot: ServiceSlot<T>): T | undefined {
    return this.provided[slot.index] as T | undefined;
  }

  has(slot: ServiceSlot<unknown>): boolean {
    return this.provided[slot.index] !== undefined;
  }

  /** The service, or an error naming it (a capability it depends on is not set up). */
  require<T>(slot: ServiceSlot<T>): T {
    const value = this.provided[slot.index];
    if (value === undefined) throw new Error(`the ${slot.name} service is not set up`);
    return value as T;
  }

  /** The service, made by `make` on first use. */
  once<T>(slot: ServiceSlot<T>, make: () => T): T {
    const value = this.provided[slot.index];
    if (value !== undefined) return value as T;
    return this.provide(slot, make());
  }
}
