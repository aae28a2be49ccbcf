import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../../src/kernel/observability/metrics.js';

describe('request metrics in the Prometheus text', () => {
  it('counts requests per label set and fills cumulative histogram buckets', async () => {
    const metrics = new Metrics(false);
    metrics.recordRequest('POST /v1/chat/completions', 'openai', 200, 0.004);
    metrics.recordRequest('POST /v1/chat/completions', 'openai', 200, 0.3);
    metrics.recordRequest('POST /v1/chat/completions', 'openai', 502, 0.02);
    metrics.recordUpstream('openai', 'chat.completions', 0.0005);
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE gateway_requests_total counter');
    expect(text).toContain('gateway_requests_total{route="POST /v1/chat/completions",provider="openai",status="200"} 2');
    expect(text).toContain('gateway_requests_total{route="POST /v1/chat/completions",provider="openai",status="502"} 1');
    expect(text).toContain('# TYPE gateway_request_duration_seconds histogram');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.001",route="POST /v1/chat/completions",provider="openai",status="200"} 0');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.005",route="POST /v1/chat/completions",provider="openai",status="200"} 1');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.025",route="POST /v1/chat/completions",provider="openai",status="200"} 1');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="0.5",route="POST /v1/chat/completions",provider="openai",status="200"} 2');
    expect(text).toContain('gateway_request_duration_seconds_bucket{le="+Inf",route="POST /v1/chat/completions",provider="openai",status="200"} 2');
    expect(text).toContain('gateway_request_duration_seconds_count{route="POST /v1/chat/completions",provider="openai",status="200"} 2');
    expect(text).toContain('gateway_request_duration_seconds_count{route="POST /v1/chat/completions",provider="openai",status="502"} 1');
    expect(text).toMatch(/gateway_request_duration_seconds_sum\{route="POST \/v1\/chat\/completions",provider="openai",status="200"\} 0\.304/);
    expect(text).toContain('gateway_upstream_duration_seconds_bucket{le="0.001",provider="openai",operation="chat.completions"} 1');
  });

  it("keeps one series per label set in features' counters and reads scraped gauges at scrape time", async () => {
    const metrics = new Metrics(false);
    const tokens = metrics.counter('gateway_tokens_total', 'Tokens.', ['direction', 'provider', 'model']);
    expect(metrics.counter('gateway_tokens_total', 'Tokens.', ['direction', 'provider', 'model'])).toBe(tokens);
    tokens.inc(['input', 'openai', 'gpt-4o'], 12);
    tokens.inc(['input', 'openai', 'gpt-4o'], 3);
    let open = 0;
    metrics.scrapedGauge('gateway_circuit_state', 'Circuits.', () => [{ labels: { target: 'openai|http://x|-' }, value: open }]);
    expect(await metrics.registry.metrics()).toContain('gateway_circuit_state{target="openai|http://x|-"} 0');
    open = 1;
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_tokens_total{direction="input",provider="openai",model="gpt-4o"} 15');
    expect(text).toContain('# TYPE gateway_circuit_state gauge');
    expect(text).toContain('gateway_circuit_state{target="openai|http://x|-"} 1');
  });
});
