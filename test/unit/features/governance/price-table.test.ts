import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PriceTable } from '../../../../src/features/governance/prices/price-table.js';
import { buildGateway, ROOT } from '../../../helpers/built-gateway.js';

const BAD = join(ROOT, 'test', 'fixtures', 'prices-bad');

describe('the shipped price table', () => {
  it('has no problem: every entry dated, sourced, per token', () => {
    const { table, problems } = PriceTable.read();
    expect(problems).toEqual([]);
    expect([...table.providers()].length).toBeGreaterThan(0);
  });

  it('compiles prices into picodollars per unit', () => {
    const { table } = PriceTable.read();
    const opus = table.lookup('anthropic', 'claude-opus-4-5');
    expect(opus).toMatchObject({ input: 5_000_000n, output: 25_000_000n, cacheRead: 500_000n, cacheWrite: 6_250_000n });
    expect(opus?.source).toMatch(/^https:\/\/.+ \(\d{4}-\d{2}-\d{2}\)$/);
    expect(table.lookup('anthropic', 'no-such-model')).toBeUndefined();
  });

  it('finds prices written per million, dearer cache reads, missing dates and empty entries', () => {
    const { problems } = PriceTable.read(BAD);
    const at = problems.map((p) => `${p.path}: ${p.message}`);
    expect(at.sort()).toEqual([
      'models.dear-cache.cache_read: a cache read costs more than plain input: check the units',
      'models.nothing.date: not a date: 2026-13-45',
      'models.nothing: prices nothing: give input/output per token, per_image, per_audio_second or per_character',
      'models.per-million-by-mistake.input: 2.5 USD per token is over $1,000 per million: prices are per token, not per million',
      'models.per-million-by-mistake.output: 10 USD per token is over $1,000 per million: prices are per token, not per million',
      "models.undated: must have required property 'date'",
    ]);
  });
});

describe('npm run check:prices', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-prices.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, PRICE_CHECK_BUILD: dirname(buildGateway()) } });

  it('passes the shipped table', () => {
    const result = run();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^price table ok: \d+ models of \d+ providers/);
  });

  it('fails a table with a per-million price, naming the file and key', () => {
    const result = run(BAD);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('openai.yaml: models.per-million-by-mistake.input: 2.5 USD per token is over $1,000 per million');
  });
});
