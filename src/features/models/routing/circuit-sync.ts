import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PrimaryChannel } from '../../../kernel/cluster/primary-channel.js';
import type { Logger } from '../../../kernel/observability/logger.js';

/** A circuit that opened or closed in one process, told to the others. */
export interface CircuitChange {
  /** The target's breaker key (provider|address|key hash). */
  key: string;
  state: 'open' | 'closed';
  /** When it opened (ms since the epoch), so every process half-opens it at about the same time. */
  openedAt: number;
  /** How metrics and logs name the circuit (provider, target). */
  label?: { provider: string; target: string };
}

/**
 * How the processes that serve one gateway (the workers of a cluster, instances sharing a
 * Redis) keep one state per circuit: each tells the others when a circuit opens or closes,
 * and applies what they tell it.
 */
export interface CircuitSync {
  publish(change: CircuitChange): void;
  subscribe(apply: (change: CircuitChange) => void): void;
  close(): Promise<void>;
}

function isChange(value: unknown): value is CircuitChange {
  const v = value as CircuitChange | null;
  return typeof v?.key === 'string' && (v.state === 'open' || v.state === 'closed') && typeof v.openedAt === 'number';
}

const TOPIC = 'circuit';

function labelOf(value: unknown): CircuitChange['label'] {
  const v = value as CircuitChange['label'] | null | undefined;
  return typeof v?.provider === 'string' && typeof v.target === 'string' ? { provider: v.provider, target: v.target } : undefined;
}

/** Between the workers of a cluster, through its primary. */
export function clusterCircuitSync(channel: PrimaryChannel): CircuitSync {
  let off: (() => void) | undefined;
  return {
    publish: (change) => channel.broadcast(TOPIC, change),
    subscribe(apply) {
      off = channel.onBroadcast(TOPIC, (payload) => {
        if (isChange(payload)) apply(payload);
      });
    },
    async close() {
      off?.();
    },
  };
}

/**
 * Between every process that uses one Redis (instances, and the workers of each): a pub/sub
 * channel `<keyPrefix>circuit`, read on a connection of its own (a subscribed connection
 * takes no other commands). A process ignores what it published itself.
 */
export function redisCircuitSync(redis: Redis, keyPrefix: string, logger: Logger): CircuitSync {
  const channel = `${keyPrefix}${TOPIC}`;
  const self = randomUUID();
  let subscriber: Redis | undefined;
  return {
    publish(change) {
      redis.publish(channel, JSON.stringify({ ...change, from: self })).catch((err: Error) => logger.warn({ err: err.message }, 'could not share a circuit change over Redis'));
    },
    subscribe(apply) {
      subscriber = redis.duplicate({ lazyConnect: false, enableOfflineQueue: true });
      subscriber.on('error', () => undefined);
      subscriber.subscribe(channel).catch((err: Error) => logger.warn({ err: err.message }, 'could not subscribe to circuit changes over Redis'));
      subscriber.on('message', (from: string, text: string) => {
        if (from !== channel) return;
        try {
          const message = JSON.parse(text) as CircuitChange & { from?: string };
          if (message.from !== self && isChange(message)) apply({ key: message.key, state: message.state, openedAt: message.openedAt, label: labelOf(message.label) });
        } catch {
          // not one of ours
        }
      });
    },
    async close() {
      await subscriber?.quit().catch(() => subscriber?.disconnect());
    },
  };
}
