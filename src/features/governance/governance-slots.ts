import { defineSlot } from '../../kernel/engine/slot.js';

/** The gateway key a provider-route request presented (authentication sets it: features/auth/gateway-key.ts). */
export { GATEWAY_KEY } from '../auth/index.js';

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
