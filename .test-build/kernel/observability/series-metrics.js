function labelsOf(names, values) {
    const labels = {};
    names.forEach((name, i) => (labels[name] = values[i]));
    return labels;
}
export class SeriesCounter {
    name;
    help;
    labelNames;
    type = 'counter';
    aggregator = 'sum';
    series = new Map();
    constructor(name, help, labelNames) {
        this.name = name;
        this.help = help;
        this.labelNames = labelNames;
    }
    inc(values, by = 1) {
        const key = values.join('\u0000');
        let entry = this.series.get(key);
        if (!entry) {
            entry = { labels: labelsOf(this.labelNames, values), value: 0 };
            this.series.set(key, entry);
        }
        entry.value += by;
    }
    get() {
        const values = [...this.series.values()].map((s) => ({ value: s.value, labels: s.labels }));
        return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    }
}
export class SeriesHistogram {
    name;
    help;
    labelNames;
    bounds;
    type = 'histogram';
    aggregator = 'sum';
    series = new Map();
    constructor(name, help, labelNames, bounds) {
        this.name = name;
        this.help = help;
        this.labelNames = labelNames;
        this.bounds = bounds;
    }
    observe(values, value) {
        const key = values.join('\u0000');
        let entry = this.series.get(key);
        if (!entry) {
            entry = { labels: labelsOf(this.labelNames, values), buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 };
            this.series.set(key, entry);
        }
        const bounds = this.bounds;
        for (let i = 0; i < bounds.length; i++) {
            if (value <= bounds[i]) {
                entry.buckets[i]++;
                break;
            }
        }
        entry.sum += value;
        entry.count++;
    }
    get() {
        const values = [];
        for (const s of this.series.values()) {
            let cumulative = 0;
            this.bounds.forEach((bound, i) => {
                cumulative += s.buckets[i];
                values.push({ value: cumulative, labels: { le: bound, ...s.labels }, metricName: `${this.name}_bucket` });
            });
            values.push({ value: s.count, labels: { le: '+Inf', ...s.labels }, metricName: `${this.name}_bucket` });
            values.push({ value: s.sum, labels: s.labels, metricName: `${this.name}_sum` });
            values.push({ value: s.count, labels: s.labels, metricName: `${this.name}_count` });
        }
        return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    }
}
//# sourceMappingURL=series-metrics.js.map