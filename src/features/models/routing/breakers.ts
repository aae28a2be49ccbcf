import { createHash } from 'node:crypto';
import CircuitBreaker from 'opossum';
import type { CircuitBreakerConfig } from '../../../generated/gateway.js';
import { parseDuration } from '../../../kernel/config/defaults.js';
import { LruMap } from '../../../kernel/lru.js';
import type { CircuitChange, CircuitSync } from './circuit-sync.js';

type Action = () => Promise<void>;
type CountsAsFailure = (err: unknown) => boolean;

/** What a circuit is shown as in metrics and logs: its provider and the target that first used it (never its address or key). */
export interface CircuitLabel {
  provider: string;
  /** `<config name>:<index path>` for configs.<name>, `header` for x-gateway-provider, `caller` for a caller's routing config. */
  target: string;
}

/** A circuit that changed state in this process, with the failure that opened it. */
export interface CircuitEvent extends CircuitLabel {
  state: 'open' | 'half-open' | 'closed';
  status?: number;
  reason?: string;
}

interface Entry {
  breaker: CircuitBreaker<[Action, CountsAsFailure], void>;
  consecutive: number;
  openedAt: number;
  label: CircuitLabel;
  /** The last failure counted (told when the circuit opens). */
  lastFailure?: { status?: number; reason?: string };
}

/** Thrown by `run` when the target's circuit is open (or half-open with its trial call in flight). */
export class BreakerOpen extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('circuit open');
  }
}

const MAX_BREAKERS = 10_000;

/**
 * One circuit breaker (opossum) per target: provider, address and a hash of the key (the key
 * of its map, never shown; metrics and logs name a circuit by its CircuitLabel). A
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

  /** Told of each state change made here (not those applied from another process). */
  onChange?: (event: CircuitEvent) => void;

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
    const entry = this.entry(change.key, change.label ?? { provider: change.key.slice(0, change.key.indexOf('|')), target: 'unknown' });
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

  private entry(key: string, label: CircuitLabel): Entry {
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
    const created: Entry = { breaker, consecutive: 0, openedAt: 0, label };
    breaker.on('failure', (err: unknown) => {
      created.consecutive++;
      const failure = err as { upstreamStatus?: number; status?: number; code?: string } | undefined;
      created.lastFailure = { status: failure?.upstreamStatus ?? failure?.status, reason: failure?.code };
      if (created.consecutive >= this.threshold) breaker.open();
    });
    breaker.on('success', () => {
      created.consecutive = 0;
    });
    breaker.on('open', () => {
      created.openedAt = Date.now();
      if (this.applying) return;
      this.sync?.publish({ key, state: 'open', openedAt: created.openedAt, label });
      this.onChange?.({ ...label, state: 'open', ...created.lastFailure });
    });
    breaker.on('halfOpen', () => {
      if (!this.applying) this.onChange?.({ ...label, state: 'half-open' });
    });
    breaker.on('close', () => {
      if (this.applying) return;
      this.sync?.publish({ key, state: 'closed', openedAt: created.openedAt, label });
      this.onChange?.({ ...label, state: 'closed' });
    });
    entry = created;
    this.entries.set(key, entry);
    return entry;
  }

  /** Runs `action` through the target's breaker (made with `label` on first use); throws BreakerOpen without running it when open. */
  async run(key: string, label: CircuitLabel, countsAsFailure: CountsAsFailure, action: Action): Promise<void> {
    const entry = this.entry(key, label);
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

  /** Every circuit's label and state, for the circuit gauge. */
  *states(): Iterable<{ label: CircuitLabel; state: 'closed' | 'open' | 'half-open' }> {
    for (const entry of this.entries.values()) {
      yield { label: entry.label, state: entry.breaker.closed ? 'closed' : entry.breaker.halfOpen ? 'half-open' : 'open' };
    }
  }

  close(): void {
    for (const entry of this.entries.values()) entry.breaker.shutdown();
    this.entries.clear();
    void this.sync?.close();
  }
}
