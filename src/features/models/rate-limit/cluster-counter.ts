import type { PrimaryChannel } from '../../../kernel/cluster/primary-channel.js';
import type { CounterSlot, RateCounter, SlotState } from './counter.js';

/** Counters held by the primary of a cluster, so every worker counts against the same limits. */
export class ClusterRateCounter implements RateCounter {
  constructor(private readonly channel: PrimaryChannel) {}

  hit(slots: CounterSlot[]): Promise<SlotState[]> {
    return this.channel.call<SlotState[]>('rate-limit', 'hit', [slots]);
  }

  addTokens(slots: CounterSlot[], tokens: number): Promise<void> {
    return this.channel.call<void>('rate-limit', 'addTokens', [slots, tokens]);
  }
}
