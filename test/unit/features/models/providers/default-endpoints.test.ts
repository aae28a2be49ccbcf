import { describe, expect, it } from 'vitest';
import type { ProviderCall, ProviderDefinition } from '../../../../../src/features/models/providers/provider.js';
import type { UpstreamRequest } from '../../../../../src/kernel/upstream/upstream-client.js';
import anthropic from '../../../../../src/features/models/providers/anthropic/index.js';
import bedrock from '../../../../../src/features/models/providers/bedrock/index.js';
import cohere from '../../../../../src/features/models/providers/cohere/index.js';

function request(def: ProviderDefinition, settings: Record<string, unknown>, call: Partial<ProviderCall>): Promise<UpstreamRequest> {
  const provider = def.create(settings);
  const full = {
    operation: 'chat.completions',
    body: { model: 'm', messages: [{ role: 'user', content: 'x' }] },
    stream: false,
    target: { provider: def.name, options: {} },
    apiKey: 'key-123456',
    params: {},
    query: new URLSearchParams(),
    headers: {},
    ...call,
  } as ProviderCall;
  return Promise.resolve(provider.operations['chat.completions']!.request(full, provider));
}

describe('public default addresses', () => {
  it('anthropic: https://api.anthropic.com/v1/messages; baseUrl replaces the origin, custom host replaces it per request', async () => {
    expect((await request(anthropic, {}, {})).url).toBe('https://api.anthropic.com/v1/messages');
    expect((await request(anthropic, { baseUrl: 'http://10.0.0.5:9000/' }, {})).url).toBe('http://10.0.0.5:9000/v1/messages');
    expect((await request(anthropic, {}, { target: { provider: 'anthropic', options: {}, baseUrl: 'https://proxy.example/anthropic' } })).url).toBe(
      'https://proxy.example/anthropic/v1/messages',
    );
  });

  it('cohere: https://api.cohere.com/v2/chat', async () => {
    expect((await request(cohere, {}, {})).url).toBe('https://api.cohere.com/v2/chat');
  });

  it('bedrock: the regional runtime endpoint of the request region, else providers.bedrock.region, else us-east-1', async () => {
    const creds = { aws_access_key_id: 'AKIDEXAMPLE', aws_secret_access_key: 'secret' };
    const model = { model: 'anthropic.claude-3-haiku-20240307-v1:0', messages: [{ role: 'user', content: 'x' }] };
    const a = await request(bedrock, {}, { body: model, target: { provider: 'bedrock', options: { ...creds, aws_region: 'ap-southeast-2' } } });
    expect(a.url).toBe('https://bedrock-runtime.ap-southeast-2.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
    expect(a.headers.host).toBe('bedrock-runtime.ap-southeast-2.amazonaws.com');
    expect(a.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/bedrock\/aws4_request, /);
    const b = await request(bedrock, { region: 'eu-central-1' }, { body: model, target: { provider: 'bedrock', options: creds } });
    expect(b.url).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse');
    const c = await request(bedrock, {}, { body: model, stream: true, target: { provider: 'bedrock', options: creds } });
    expect(c.url).toBe('https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream');
    expect(c.headers.accept).toBe('application/vnd.amazon.eventstream');
  });
});
