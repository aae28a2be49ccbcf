/**
 * The Responses API with nothing but a gateway key and a catalogue model, through the `openai`
 * SDK: a response made by model name is read back, listed and deleted by its id alone (such
 * requests name no model to route by; before, they asked for x-gateway-provider). Another key's
 * id is an unknown one. A response its provider keeps too is deleted there as well, through the
 * catalogue model's target that made it, with that target's credential.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { fixtureJson } from '../../helpers/fixtures.js';
import { issueKey } from '../../helpers/gateway-keys.js';
import { refusal } from '../../helpers/sdk-refusal.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';

const ADMIN = 'admin-token-responses-keys-0123456789ab';

/** OpenAI's recorded completed response, under `id`. */
function nativeResponse(id: string) {
  return { ...fixtureJson('openai', 'responses'), id };
}

describe('the Responses API with a gateway key alone', () => {
  let openai: FakeUpstream;
  let openaiOther: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: TestGateway;
  let alice: OpenAI;
  let bob: OpenAI;

  beforeAll(async () => {
    anthropic = await new FakeUpstream().on('POST /v1/messages', { json: fixtureJson('anthropic', 'text') }).start();
    openai = await new FakeUpstream()
      .on('POST /v1/responses', ...['resp_native_1', 'resp_native_2', 'resp_native_3'].map((id) => ({ json: nativeResponse(id) })))
      .on('DELETE /v1/responses/resp_native_1', { json: { id: 'resp_native_1', object: 'response', deleted: true } })
      .on('DELETE /v1/responses/resp_native_2', { json: { id: 'resp_native_2', object: 'response', deleted: true } })
      .on('DELETE /v1/responses/resp_native_3', { json: { id: 'resp_native_3', object: 'response', deleted: true } })
      .start();
    // Another deployment: refuses to answer (a fallback's first target), and keeps nothing.
    openaiOther = await new FakeUpstream().on('POST /v1/responses', { status: 500, json: { error: { message: 'down', type: 'server_error' } } }).start();
    gw = await startGateway({
      logging: { level: 'warn' },
      auth: { adminToken: ADMIN },
      secrets: { key: 'ab'.repeat(32) },
      providers: { openai: { baseUrl: `${openai.url}/v1` }, anthropic: { baseUrl: anthropic.url } },
      credentials: {
        'anthropic-prod': { provider: 'anthropic', api_key: 'sk-ant-held-responses-01' },
        'openai-prod': { provider: 'openai', api_key: 'sk-held-responses-02' },
        'openai-other': { provider: 'openai', api_key: 'sk-held-responses-03' },
      },
      models: {
        claude: { credential: 'anthropic-prod', model: 'claude-sonnet-4-5' },
        'gpt-fast': { credential: 'openai-prod', model: 'gpt-4o-mini' },
        'gpt-either': {
          strategy: { mode: 'fallback' },
          targets: [
            { credential: 'openai-other', model: 'gpt-4o-mini', base_url: `${openaiOther.url}/v1` },
            { credential: 'openai-prod', model: 'gpt-4o-mini' },
          ],
        },
      },
    });
    const client = async (user: string) => new OpenAI({ apiKey: (await issueKey(gw.url, ADMIN, { user })).token, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    alice = await client('alice@example.com');
    bob = await client('bob@example.com');
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([openai, openaiOther, anthropic].map((f) => f?.stop()));
  });

  it('reads back, lists the input of and deletes a kept response by its id, and another key finds none of it', async () => {
    const made = await alice.responses.create({ model: 'claude', input: 'Hello there' });
    expect(made.status).toBe('completed');
    const sent = anthropic.requests.length;

    const read = await alice.responses.retrieve(made.id);
    expect(read.id).toBe(made.id);
    expect(read.output_text).toBe(made.output_text);
    const items = await alice.responses.inputItems.list(made.id);
    expect(items.data.map((item: any) => item.content?.[0]?.text)).toEqual(['Hello there']);

    for (const call of [
      () => bob.responses.retrieve(made.id),
      () => bob.responses.inputItems.list(made.id),
      () => bob.responses.delete(made.id),
      () => alice.responses.retrieve('resp_unknown_0'),
    ]) {
      const refused = await refusal(call());
      expect(refused.status).toBe(404);
      expect(refused.error).toMatchObject({ code: 'not_found', param: 'response_id' });
    }

    await alice.responses.delete(made.id);
    expect((await refusal(alice.responses.retrieve(made.id))).status).toBe(404);
    // All of it from the gateway's store: nothing more went upstream.
    expect(anthropic.requests.length).toBe(sent);
  });

  it('deletes a response its provider keeps too there as well, with the credential it was made with', async () => {
    const made = await alice.responses.create({ model: 'gpt-fast', input: 'Hi' });
    expect(made.id).toBe('resp_native_1');
    expect((await alice.responses.retrieve(made.id)).output_text).toBe(made.output_text);
    expect((await refusal(bob.responses.delete(made.id))).status).toBe(404);

    const deleted = await alice.responses.delete(made.id);
    expect(deleted).toMatchObject({ id: 'resp_native_1', deleted: true });
    const calls = openai.received('DELETE /v1/responses/resp_native_1');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe('Bearer sk-held-responses-02');
    expect((await refusal(alice.responses.retrieve(made.id))).status).toBe(404);
  });

  it('deletes it through the target of a fallback that made it, not the first one', async () => {
    const made = await alice.responses.create({ model: 'gpt-either', input: 'Hi again' });
    expect(made.id).toBe('resp_native_2');
    expect(openaiOther.received('POST /v1/responses')).toHaveLength(1);

    await alice.responses.delete(made.id);
    expect(openai.received('DELETE /v1/responses/resp_native_2')).toHaveLength(1);
    expect(openai.received('DELETE /v1/responses/resp_native_2')[0]!.headers.authorization).toBe('Bearer sk-held-responses-02');
    expect(openaiOther.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses']);
  });

  it('a key that may no longer use the model that made it gets the catalogue 404, and nothing is deleted', async () => {
    const issued = await issueKey(gw.url, ADMIN, { user: 'carol@example.com', models: ['gpt-fast', 'claude'] });
    const carol = new OpenAI({ apiKey: issued.token, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const made = await carol.responses.create({ model: 'gpt-fast', input: 'Hi' });
    expect(made.id).toBe('resp_native_3');
    const res = await fetch(`${gw.url}/v1/auth/tokens/${issued.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ models: ['claude'] }),
    });
    expect(res.status).toBe(200);

    const refused = await refusal(carol.responses.delete(made.id));
    expect(refused.status).toBe(404);
    expect(refused.error).toMatchObject({ code: 'model_not_found' });
    expect(openai.received('DELETE /v1/responses/resp_native_3')).toHaveLength(0);
    expect((await carol.responses.retrieve(made.id)).id).toBe(made.id);
  });
});
