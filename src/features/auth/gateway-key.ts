import type { Budget } from '../../generated/governance/budget.js';
import { defineSlot } from '../../kernel/engine/slot.js';

/*
 * The identity a gateway key carries: authentication makes it (a token, a config key), the
 * governance feature (limits, budgets, the catalogue, the ledger) reads it.
 */

/** A gateway key as a request presents it: who it belongs to and what it may do. */
export interface GatewayKey {
  /** The token id (tok_...) or, for a config key, its stable id. */
  id: string;
  user: string;
  team?: string;
  organization?: string;
  /** Set from x-gateway-customer, only for keys with metadata.assertsCustomer. */
  customer?: string;
  roles?: string[];
  /** Catalogue model names or globs the key may use; undefined: all. */
  models?: string[];
  limits?: { rpm?: number; tpm?: number; maxParallel?: number };
  budgets?: Budget[];
  metadata?: Record<string, unknown>;
}

/**
 * The gateway key a provider-route request presented (set by authenticate beside ctx.identity):
 * its models, limits, budgets and metadata. Absent for requests without a gateway key.
 */
export const GATEWAY_KEY = defineSlot<GatewayKey>('gateway-key', 'a gateway key');
