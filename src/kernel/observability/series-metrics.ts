/**
 * Prometheus counters and histograms for the request path. Each label set is found with one
 * Map lookup and updated with plain arithmetic (prom-client hashes and validates the label
 * object on every call). They register into a prom-client Registry, which formats them.
 */
interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  names.forEach((name, i) => (labels[name] = values[i]!));
  return labels;
}

/**
 * The series of one metric by label values: one nested Map per label, so finding a known series
 * makes no key string (a joined key would be a new string per request).
 */
class SeriesIndex<T> {
  private readonly root = new Map<string, unknown>();
  readonly all: T[] = [];

  constructor(private readonly depth: number) {}

  /** The series of these label values, made by `make` the first time (a method: no closure per call). */
  find<M extends { make(values: readonly string[]): T }>(values: readonly string[], maker: M): T {
    let level = this.root;
    const last = this.depth - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i]!;
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (!next) level.set(value, (next = new Map()));
      level = next;
    }
    let entry = level.get(values[last]!) as T | undefined;
    if (!entry) {
      level.set(values[last]!, (entry = maker.make(values)));
      this.all.push(entry);
    }
    return entry;
  }
}

export class SeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly series: SeriesIndex<{ labels: Record<string, string>; value: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    this.series = new SeriesIndex(labelNames.length);
  }

  inc(values: readonly string[], by = 1): void {
    this.series.find(values, this).value += by;
  }

  /** A new series (SeriesIndex.find). */
  make(values: readonly string[]): { labels: Record<string, string>; value: number } {
    return { labels: labelsOf(this.labelNames, values), value: 0 };
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values = this.series.all.map((s) => ({ value: s.value, labels: s.labels }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series: SeriesIndex<{ labels: Record<string, string>; buckets: number[]; sum: number; count: number }>;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    this.series = new SeriesIndex(labelNames.length);
  }

  observe(values: readonly string[], value: number): void {
    const entry = this.series.find(values, this);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        entry.buckets[i]!++;
        break;
      }
    }
    entry.sum += value;
    entry.count++;
  }

  /** A new series (SeriesIndex.find). */
  make(values: readonly string[]): { labels: Record<string, string>; buckets: number[]; sum: number; count: number } {
    return { labels: labelsOf(this.labelNames, values), buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 };
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const s of this.series.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        values.push({ value: cumulative, labels: { le: bound, ...s.labels }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: s.count, labels: { le: '+Inf', ...s.labels }, metricName: `${this.name}_bucket` });
      values.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
      values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A gauge whose samples are read from the state they describe when /metrics is scraped. */
export class ScrapedGauge {
  readonly type = 'gauge';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    public read: () => Iterable<{ labels: Record<string, string>; value: number }>,
  ) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const sample of this.read()) values.push({ value: sample.value, labels: sample.labels });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
