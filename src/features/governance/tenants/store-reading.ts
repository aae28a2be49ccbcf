/**
 * What the admin API keeps of one kind, as the request path reads it: read from the store at
 * most once per `ttlMs` (writes on this instance drop the reading at once, through
 * `invalidate`; another instance's are seen within the TTL). `fresh()` answers in the same turn
 * while the reading is within its TTL; `current()` reads the store when it is not.
 */
export class StoreReading<T> {
  private reading: T | undefined;
  private loadedAt = 0;
  private loading: Promise<T> | undefined;
  private generation = 0;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly ttlMs = 5000,
  ) {}

  /** Drops the reading (an object of this kind was written). */
  invalidate(): void {
    this.generation++;
    this.reading = undefined;
    this.loading = undefined;
  }

  /**
   * The reading, while within the TTL (undefined: a read is due). A new object after every read
   * or write, so a caller may keep what it worked out from one until it changes.
   */
  fresh(): T | undefined {
    return this.reading !== undefined && Date.now() - this.loadedAt < this.ttlMs ? this.reading : undefined;
  }

  /** The last reading, past its TTL too (undefined: none since start-up or the last write). */
  last(): T | undefined {
    return this.reading;
  }

  /** The reading, from the store when the TTL has passed (one read for every caller waiting on it). */
  current(): Promise<T> {
    const fresh = this.fresh();
    return fresh !== undefined ? Promise.resolve(fresh) : this.load();
  }

  private load(): Promise<T> {
    if (this.loading) return this.loading;
    const generation = this.generation;
    const loading: Promise<T> = this.read()
      .then((value) => {
        // A write while loading: this read may predate it, so it is not kept.
        if (generation === this.generation) {
          this.reading = value;
          this.loadedAt = Date.now();
        }
        return value;
      })
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }
}
