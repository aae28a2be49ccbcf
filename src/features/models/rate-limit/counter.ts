/** One counter slot of one rule for one subject, in the current fixed window. */
export interface CounterSlot {
  /** Counter key, the window index included. */
  key: string;
  /** ms until the window ends (the counter's time to live). */
  ttlMs: number;
}

export interface SlotState {
  /** Requests counted in this window, this one included. */
  requests: number;
  /** Tokens charged in this window so far. */
  tokens: number;
}

/** Where counters live: this process, or Redis for several instances. */
export interface RateCounter {
  /** Counts one request in every slot and returns each slot's state (atomically per slot). */
  hit(slots: CounterSlot[]): Promise<SlotState[]>;
  /** Adds used tokens to slots. */
  addTokens(slots: CounterSlot[], tokens: number): Promise<void>;
}
