import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderCall, ProviderInstance } from '../../../../../src/features/models/providers/provider.js';
import { providerFromData, type ProviderData } from '../../../../../src/features/models/providers/openai-compatible/provider-data.js';
import { BUILTIN_PROVIDERS, PROVIDER_DATA, readProviderData } from '../../../../../src/features/models/providers/builtin-providers.js';
import { guardProvider } from '../../../../../src/features/models/providers/shared/upstream-guard.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import { parsedProviderData, providerDataTexts } from '../../../../../src/features/models/providers/provider-data-files.js';
// @ts-expect-error: a plain script without types
import { renderTable, withTable } from '../../../../../scripts/provider-table.mjs';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..', '..');

function guarded(id: string, settings: Record<string, unknown> = {}): ProviderInstance {
  return guardProvider(BUILTIN_PROVIDERS.find((p) => p.name === id)!.create(settings));
}

function call(provider: string, options: Record<string, unknown> = {}, body: Record<string, unknown> = { model: 'm', messages: [{ role: 'user', content: 'x' }] }): ProviderCall {
  return {
    operation: 'chat.completions',
    body,
    stream: false,
    target: { provider, options },
    apiKey: 'key-123456',
    params: {},
    query: new URLSearchParams(),
    hasQuery: false,
    headers: {},
    signal: new AbortController().signal,
  };
}

async function urlOf(instance: ProviderInstance, c: ProviderCall): Promise<string> {
  return (await instance.operations['chat.completions']!.request(c, instance)).url;
}

async function refusal(instance: ProviderInstance, c: ProviderCall): Promise<GatewayError> {
  try {
    await instance.operations['chat.completions']!.request(c, instance);
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('the request was built');
}

describe('providers as data: addresses built from options', () => {
  it('cloudflare-workers-ai: the account id goes into the path; missing or malformed is a 400 naming its header', async () => {
    const cf = guarded('cloudflare-workers-ai');
    const account = '0123456789abcdef0123456789abcdef';
    expect(await urlOf(cf, call('cloudflare-workers-ai', { cloudflare_account_id: account }))).toBe(
      `https://api.cloudflare.com/client/v4/accounts/${account}/ai/v1/chat/completions`,
    );
    const missing = await refusal(cf, call('cloudflare-workers-ai'));
    expect(missing.status).toBe(400);
    expect(missing.param).toBe('x-gateway-cloudflare-account-id');
    const bad = await refusal(cf, call('cloudflare-workers-ai', { cloudflare_account_id: '../../evil' }));
    expect(bad.param).toBe('x-gateway-cloudflare-account-id');
  });

  it('cloudflare-workers-ai: providers.<id>.<field> gives the account when the request does not', async () => {
    const account = 'fedcba9876543210fedcba9876543210';
    expect(await urlOf(guarded('cloudflare-workers-ai', { cloudflare_account_id: account }), call('cloudflare-workers-ai'))).toContain(`/accounts/${account}/ai/v1/`);
  });

  it('databricks and snowflake: the host is built from the option and stays on the provider domain', async () => {
    const db = guarded('databricks');
    expect(await urlOf(db, call('databricks', { databricks_host: 'dbc-1234abcd-5678.cloud.databricks.com' }))).toBe(
      'https://dbc-1234abcd-5678.cloud.databricks.com/serving-endpoints/chat/completions',
    );
    for (const host of ['evil.com', 'evil.com/x.cloud.databricks.com', 'a.cloud.databricks.com.evil.com', 'user@x.cloud.databricks.com']) {
      expect((await refusal(db, call('databricks', { databricks_host: host }))).param).toBe('x-gateway-databricks-host');
    }
    const sf = guarded('snowflake-cortex');
    expect(await urlOf(sf, call('snowflake-cortex', { snowflake_account: 'myorg-myaccount' }))).toBe(
      'https://myorg-myaccount.snowflakecomputing.com/api/v2/cortex/v1/chat/completions',
    );
    expect((await refusal(sf, call('snowflake-cortex', { snowflake_account: 'x.evil.com:443/' }))).status).toBe(400);
  });

  it('ibm-watsonx: the region defaults to us-south; azure-ai-foundry sends the key as api-key', async () => {
    expect(await urlOf(guarded('ibm-watsonx'), call('ibm-watsonx'))).toBe('https://us-south.ml.cloud.ibm.com/ml/gateway/v1/chat/completions');
    expect(await urlOf(guarded('ibm-watsonx'), call('ibm-watsonx', { watsonx_region: 'eu-de' }))).toBe('https://eu-de.ml.cloud.ibm.com/ml/gateway/v1/chat/completions');
    const foundry = guarded('azure-ai-foundry');
    const req = await foundry.operations['chat.completions']!.request(call('azure-ai-foundry', { azure_foundry_resource: 'my-res' }), foundry);
    expect(req.url).toBe('https://my-res.services.ai.azure.com/openai/v1/chat/completions');
    expect(req.headers['api-key']).toBe('key-123456');
    expect(req.headers.authorization).toBeUndefined();
  });

  it('a configured baseUrl replaces the templated address', async () => {
    expect(await urlOf(guarded('databricks', { baseUrl: 'http://10.0.0.5:9000/serving-endpoints' }), call('databricks'))).toBe(
      'http://10.0.0.5:9000/serving-endpoints/chat/completions',
    );
  });
});

describe('providers as data: the interpreter', () => {
  const base: ProviderData = {
    id: 'example',
    name: 'Example',
    docs: 'https://example.com/docs',
    kind: 'hosted',
    base_url: 'https://api.example.com/v1',
    auth: { header: 'x-key', prefix: 'Key ' },
    operations: ['chat.completions'],
    prices: 'none',
  };

  it('renames usage fields in whole answers and in stream chunks', () => {
    const p = providerFromData({ ...base, usage: { rename: { input_tokens: 'prompt_tokens', output_tokens: 'completion_tokens' } } }).create({});
    const chat = p.operations['chat.completions']!;
    const raw = Buffer.from('{"usage":{"input_tokens":3,"output_tokens":4}}');
    expect(chat.responseNeeded!(raw)).toBe(true);
    expect(chat.responseNeeded!(Buffer.from('{"usage":{"prompt_tokens":3}}'))).toBe(false);
    expect(chat.response!(JSON.parse(raw.toString()), call('example'))).toEqual({ usage: { prompt_tokens: 3, completion_tokens: 4 } });
    const mapper = chat.stream!.createMapper(call('example'));
    expect(mapper({ data: '{"choices":[],"usage":{"input_tokens":1,"output_tokens":2}}' })).toEqual({
      type: 'chunk',
      data: '{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}',
    });
  });

  it('drops, renames and bounds fields of chat requests; keeps the caller bytes when nothing changes', async () => {
    const p = providerFromData({
      ...base,
      params: { rename: { max_completion_tokens: 'max_tokens' }, drop: ['logit_bias'] },
      constraints: { top_p: { max: 0.9, clamp: true } },
    }).create({});
    const chat = p.operations['chat.completions']!;
    const req = await chat.request(call('example', {}, { model: 'm', messages: [], max_completion_tokens: 9, logit_bias: {}, top_p: 1 }), p);
    expect(JSON.parse(String(req.body))).toEqual({ model: 'm', messages: [], max_tokens: 9, top_p: 0.9 });
    expect(req.headers['x-key']).toBe('Key key-123456');
    const raw = Buffer.from('{"model":"m","messages":[]}');
    const same = await chat.request({ ...call('example', {}, { model: 'm', messages: [] }), rawBody: raw }, p);
    expect(same.body).toBe(raw);
  });

  it('reads every shipped file; a bad file stops start-up naming the file and the field', () => {
    expect(PROVIDER_DATA.length).toBe(readProviderData().length);
    const dir = mkdtempSync(join(tmpdir(), 'gw-provider-data-'));
    try {
      writeFileSync(
        join(dir, 'bad.yaml'),
        'id: bad\nname: Bad\ndocs: http://insecure\nkind: hosted\nbase_url: https://x\nauth: { header: authorization }\noperations: [chat.completions]\nprices: none\n',
      );
      expect(() => readProviderData(dir)).toThrow(/bad\.yaml: docs: /);
      writeFileSync(
        join(dir, 'bad.yaml'),
        'id: other\nname: Bad\ndocs: https://x.example\nkind: hosted\nbase_url: https://x.example/{zone}\nauth: { header: authorization }\noperations: [chat.completions]\nprices: none\n',
      );
      expect(() => readProviderData(dir)).toThrow(/does not match the file name/);
      writeFileSync(
        join(dir, 'bad.yaml'),
        'id: bad\nname: Bad\ndocs: https://x.example\nkind: hosted\nbase_url: https://x.example/{zone_id}\nauth: { header: authorization }\noperations: [chat.completions]\nprices: none\n',
      );
      expect(() => readProviderData(dir)).toThrow(/\{zone_id\}, which no option declares/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('providers as data: the build parses the files once', () => {
  it('the hash covers every file name and text; without a build copy made from them the YAML is parsed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-provider-texts-'));
    try {
      writeFileSync(join(dir, 'a.yaml'), 'id: a\n');
      const first = providerDataTexts(dir).hash;
      writeFileSync(join(dir, 'a.yaml'), 'id: b\n');
      expect(providerDataTexts(dir).hash).not.toBe(first);
      writeFileSync(join(dir, 'b.yaml'), 'id: [unclosed\n');
      expect(() => parsedProviderData(dir)).toThrow(/b\.yaml: not YAML/);
      rmSync(join(dir, 'b.yaml'));
      expect(parsedProviderData(dir)).toEqual([{ name: 'a.yaml', file: join(dir, 'a.yaml'), data: { id: 'b' } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('README: the provider table is generated from providers/*.yaml', () => {
  it('matches the data files (npm run gen:provider-table writes it)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(withTable(readme, renderTable())).toBe(readme);
    for (const d of PROVIDER_DATA) expect(readme).toContain(`| \`${d.id}\` | \`${d.base_url}\` |`);
  });
});
