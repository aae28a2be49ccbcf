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

export class SeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  inc(values: readonly string[], by = 1): void {
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: labelsOf(this.labelNames, values), value: 0 };
      this.series.set(key, entry);
    }
    entry.value += by;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values = [...this.series.values()].map((s) => ({ value: s.value, labels: s.labels }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Record<string, string>; buckets: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {}

  observe(values: readonly string[], value: number): void {
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: labelsOf(this.labelNames, values), buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
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

  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] } {
    const values: MetricValue[] = [];
    for (const s of this.series.values()) {
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
