/** How a kept resource is closed when no later config keeps it. */
type Closer<T> = (value: T) => Promise<void> | void;

interface Entry {
  settings: string;
  value: unknown;
  close?: Closer<unknown>;
}

/** A stable text of settings (object keys sorted), compared to tell whether they changed. */
function settingsText(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * Long-lived resources of one config generation (the store, tool servers, the Redis client,
 * in-memory counters), each made under a key from the settings it depends on. A reload builds
 * the next generation with the previous one's resources at hand: a resource whose settings did
 * not change is taken over as it is (connections, processes and counters kept), the others are
 * made anew and the old ones closed when the previous generation retires.
 */
export class KeptResources {
  private readonly entries = new Map<string, Entry>();
  /** Keys taken over from the previous generation (it must not close them). */
  private readonly taken = new Set<string>();

  constructor(private readonly previous?: KeptResources) {}

  /** The resource under `key`: the previous generation's when its settings are the same, else `make()`. */
  keep<T>(key: string, settings: unknown, make: () => T, close?: Closer<T>): T {
    const text = settingsText(settings);
    const existing = this.entries.get(key);
    if (existing && existing.settings === text) return existing.value as T;
    const old = this.previous?.entries.get(key);
    if (old && old.settings === text) {
      this.taken.add(key);
      this.entries.set(key, old);
      return old.value as T;
    }
    const value = make();
    this.entries.set(key, { settings: text, value, close: close as Closer<unknown> | undefined });
    return value;
  }

  /** Whether `key` was taken over from the previous generation (already started). */
  wasKept(key: string): boolean {
    return this.taken.has(key);
  }

  /** Closes what this generation made itself (a generation that failed to build; what it took over stays). */
  async abandon(): Promise<void> {
    await this.closeWhere((key) => !this.taken.has(key));
  }

  /** Closes what `successor` did not take over (this generation retires after a reload). */
  async retire(successor: KeptResources): Promise<void> {
    await this.closeWhere((key) => !successor.taken.has(key));
  }

  /** Closes everything (shutdown). */
  async closeAll(): Promise<void> {
    await this.closeWhere(() => true);
  }

  private async closeWhere(pick: (key: string) => boolean): Promise<void> {
    const keys = [...this.entries.keys()].reverse().filter(pick);
    let failure: unknown;
    for (const key of keys) {
      const entry = this.entries.get(key)!;
      this.entries.delete(key);
      // One that fails to close does not keep the others open.
      await Promise.resolve()
        .then(() => entry.close?.(entry.value))
        .catch((err: unknown) => (failure ??= err));
    }
    if (failure !== undefined) throw failure;
  }
}
