import { createHash } from 'node:crypto';
import CircuitBreaker from 'opossum';
import type { CircuitBreakerConfig } from '../../../generated/gateway.js';
import { parseDuration } from '../../../kernel/config/defaults.js';
import { LruMap } from '../../../kernel/lru.js';
import type { CircuitChange, CircuitSync } from './circuit-sync.js';

type Action = () => Promise<void>;
type CountsAsFailure = (err: unknown) => boolean;

interface Entry {
  breaker: CircuitBreaker<[Action, CountsAsFailure], void>;
  consecutive: number;
  openedAt: number;
}

/** Thrown by `run` when the target's circuit is open (or half-open with its trial call in flight). */
export class BreakerOpen extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('circuit open');
  }
}

const MAX_BREAKERS = 10_000;

/**
 * One circuit breaker (opossum) per target: provider, address and a hash of the key. A
 * circuit opens after `failureThreshold` consecutive failures (only failures the caller's
 * predicate counts: 5xx, 429, timeouts, network errors), stays open for `cooldown`, then
 * half-opens: the next call is a trial that closes it on success or opens it again. With a
 * `sync`, a circuit that opens or closes here opens or closes in the gateway's other processes
 * too (the workers of a cluster, instances sharing a Redis), and theirs here.
 */
export class BreakerRegistry {
  private readonly entries = new LruMap<string, Entry>(MAX_BREAKERS, (_key, entry) => entry.breaker.shutdown());
  readonly threshold: number;
  readonly cooldownMs: number;

  /** Set while a change told by another process is applied (it is not told back). */
  private applying = false;

  constructor(
    config: CircuitBreakerConfig,
    private readonly sync?: CircuitSync,
  ) {
    this.threshold = config.failureThreshold;
    this.cooldownMs = parseDuration(config.cooldown);
    sync?.subscribe((change) => this.apply(change));
  }

  /** A circuit another process opened or closed: the same here. */
  private apply(change: CircuitChange): void {
    const entry = this.entry(change.key);
    this.applying = true;
    try {
      if (change.state === 'open') {
        if (!entry.breaker.opened) entry.breaker.open();
        entry.openedAt = change.openedAt;
      } else {
        if (!entry.breaker.closed) entry.breaker.close();
        entry.consecutive = 0;
      }
    } finally {
      this.applying = false;
    }
  }

  static keyFor(provider: string, baseUrl: string, apiKey: string | undefined): string {
    const keyHash = apiKey ? createHash('sha256').update(apiKey).digest('base64url').slice(0, 16) : '-';
    return `${provider}|${baseUrl}|${keyHash}`;
  }

  private entry(key: string): Entry {
    let entry = this.entries.get(key);
    if (entry) return entry;
    const breaker = new CircuitBreaker<[Action, CountsAsFailure], void>((action: Action) => action(), {
      name: key,
      timeout: false,
      resetTimeout: this.cooldownMs,
      // Consecutive failures decide (below); opossum's own percentage rule never trips.
      errorThresholdPercentage: 100,
      enableSnapshots: false,
      // opossum passes fire()'s arguments after the error: (err, action, countsAsFailure).
      errorFilter: ((err: unknown, _action: Action, counts: CountsAsFailure) => !counts(err)) as unknown as (err: unknown) => boolean,
    });
    const created: Entry = { breaker, consecutive: 0, openedAt: 0 };
    breaker.on('failure', () => {
      created.consecutive++;
      if (created.consecutive >= this.threshold) breaker.open();
    });
    breaker.on('success', () => {
      created.consecutive = 0;
    });
    breaker.on('open', () => {
      created.openedAt = Date.now();
      if (!this.applying) this.sync?.publish({ key, state: 'open', openedAt: created.openedAt });
    });
    breaker.on('close', () => {
      if (!this.applying) this.sync?.publish({ key, state: 'closed', openedAt: created.openedAt });
    });
    entry = created;
    this.entries.set(key, entry);
    return entry;
  }

  /** Runs `action` through the target's breaker; throws BreakerOpen without running it when open. */
  async run(key: string, countsAsFailure: CountsAsFailure, action: Action): Promise<void> {
    const entry = this.entry(key);
    try {
      await entry.breaker.fire(action, countsAsFailure);
    } catch (err) {
      if ((err as { code?: string })?.code === 'EOPENBREAKER') {
        const left = Math.max(0, entry.openedAt + this.cooldownMs - Date.now());
        throw new BreakerOpen(left / 1000);
      }
      throw err;
    }
  }

  /** "closed", "open" or "half-open" (for tests and diagnostics). */
  state(key: string): 'closed' | 'open' | 'half-open' {
    const entry = this.entries.get(key);
    if (!entry || entry.breaker.closed) return 'closed';
    return entry.breaker.halfOpen ? 'half-open' : 'open';
  }

  /** Every target's circuit: its key (provider|address|key hash) and state, for the circuit gauge. */
  *states(): Iterable<{ key: string; state: 'closed' | 'open' | 'half-open' }> {
    for (const [key, entry] of this.entries.entries()) {
      yield { key, state: entry.breaker.closed ? 'closed' : entry.breaker.halfOpen ? 'half-open' : 'open' };
    }
  }

  close(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
    void this.sync?.close();
  }
}
