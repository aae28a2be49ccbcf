import { defineSlot } from '../../kernel/engine/slot.js';
import type { GatewayKey } from './governance-types.js';

/**
 * The gateway key a provider-route request presented (set by authenticate beside ctx.identity):
 * its models, limits, budgets and metadata. Absent for requests without a gateway key.
 */
export const GATEWAY_KEY = defineSlot<GatewayKey>('gateway-key', 'a gateway key');

/** The catalogue model a request was routed by (route stage, catalogue routing). */
export interface CatalogueChoice {
  /** The public name the request sent in `model` ("gpt-fast", "openai/gpt-4o-mini"). */
  name: string;
  /** The catalogue entry that serves it (the name itself, or a glob such as "openai/*"). */
  entry: string;
  /** Names of the held credentials its targets may use (the one that answered is on the TARGET slot: `credential`). */
  credentials: string[];
}

/** Set by route when the request was routed by its model through the catalogue (for budgets and the ledger). */
export const CATALOGUE_MODEL = defineSlot<CatalogueChoice>('catalogue-model', 'a catalogue model');
