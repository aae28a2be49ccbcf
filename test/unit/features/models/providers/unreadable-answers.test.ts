import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeServices } from '../../../../helpers/services.js';
import { PROVIDERS } from '../../../../../src/features/models/providers/provider-registry.js';
import type { FramedEvent, OperationAdapter, ProviderCall } from '../../../../../src/features/models/providers/provider.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

/**
 * Every provider's reading of an upstream answer (a whole answer's translation, a stream's event
 * mapper), fuzzed with answers that are JSON but not what the provider documents: each gives its
 * translation or a gateway error (a provider_error the contract answers with 502), never a
 * TypeError, which the caller would see as the gateway's own 500. The answers are built from the
 * member names and type values the providers' answers use, so that they reach past the first
 * check of a shape into its members.
 */

const KEYS = `
  type event index delta text content_block content message usage input_tokens output_tokens stop_reason id name
  input partial_json thinking signature choices finish_reason role tool_calls function arguments candidates
  parts functionCall args usageMetadata promptTokenCount candidatesTokenCount finishReason contentBlockIndex
  start toolUse toolUseId stopReason metrics reasoningContent error code model created object createTime
  responseId modelVersion thought data embedding embeddings float values predictions response output b64_json
  url revised_prompt results relevance_score document meta billed_units tool_call_id tool_plan citations
  logprobs generation outputs output_text status refusal annotations audio cache_read_input_tokens
  cache_creation_input_tokens prompt_tokens completion_tokens total_tokens inputTokens outputTokens totalTokens
  value reasoning_content promptFeedback blockReason statistics token_count
`
  .trim()
  .split(/\s+/);
const TYPES = `
  message_start content_block_start content_block_delta content_block_stop message_delta message_stop text_delta
  input_json_delta thinking_delta signature_delta tool_use text thinking redacted_thinking error ping
  message-start content-start content-delta content-end tool-call-start tool-call-delta tool-call-end
  message-end tool-plan-delta citation-start STOP MAX_TOKENS SAFETY end_turn tool_calls stop length assistant
  function server_tool_use response.output_text.delta response.completed list embedding
`
  .trim()
  .split(/\s+/);
const AWS_EVENTS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata', 'throttlingException', 'validationException'];

const leaf = fc.oneof(fc.constantFrom(...TYPES), fc.string({ maxLength: 5 }), fc.integer({ min: -3, max: 50 }), fc.double(), fc.boolean(), fc.constant(null));
// Objects as JSON.parse makes them (with Object's prototype), members named as providers name theirs.
const { node } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('object'), fc.array(tie('node'), { maxLength: 3 })),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie('node'), { maxKeys: 6, noNullPrototype: true }),
}));
const shaped = fc.dictionary(fc.constantFrom(...KEYS), node, { maxKeys: 8, noNullPrototype: true });
const answer = fc.oneof(fc.jsonValue({ maxDepth: 3 }), shaped);

function call(operation: string, stream: boolean): ProviderCall {
  return {
    operation,
    body: { model: 'm', messages: [{ role: 'user', content: 'x' }], prompt: 'x', input: 'x', documents: ['a', 'b'], query: 'q', stream },
    stream,
    target: { provider: 'fuzzed', model: 'm', apiKey: 'k', options: {} },
    apiKey: 'k',
    params: { file_id: 'f', batch_id: 'b', fine_tuning_job_id: 'j', response_id: 'r' },
    query: new URLSearchParams(),
    headers: {},
    signal: new AbortController().signal,
  } as unknown as ProviderCall;
}

/** fc.assert, its failure naming the adapter. */
function assertFor(label: string, run: () => void): void {
  try {
    run();
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}`);
  }
}

/** Runs `read`; a failure must be a gateway error. */
function readsOrRefuses(read: () => void): void {
  try {
    read();
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
  }
}

const services = makeServices({});
const registry = services.require(PROVIDERS);
const adapters: Array<{ label: string; adapter: OperationAdapter; operation: string }> = [];
for (const id of registry.ids()) {
  for (const [operation, adapter] of Object.entries(registry.get(id)?.operations ?? {})) {
    if (adapter) adapters.push({ label: `${id} ${operation}`, adapter, operation });
  }
}

describe('every provider reads any upstream answer, or refuses it with a gateway error', () => {
  it('covers the providers and their operations', () => {
    expect(adapters.filter((a) => a.adapter.response).length).toBeGreaterThan(100);
    expect(adapters.filter((a) => a.adapter.stream).length).toBeGreaterThan(100);
  });

  it('whole answers', () => {
    for (const { label, adapter, operation } of adapters) {
      if (!adapter.response) continue;
      assertFor(label, () =>
        fc.assert(
          fc.property(answer, (body) => readsOrRefuses(() => adapter.response!(body, call(operation, false)))),
          { numRuns: 150, examples: [[null], [[]], [{}], [{ candidates: [null] }], [{ embeddings: { float: 1 } }], [{ results: [null] }]] },
        ),
      );
    }
  });

  it('an embeddings answer is given as lists of numbers, or refused: never other values as vectors', () => {
    const embedders = adapters.filter((a) => a.operation === 'embeddings' && a.adapter.response);
    expect(embedders.length).toBeGreaterThan(3);
    const vectors = fc.array(fc.oneof(fc.array(fc.double({ noNaN: true }), { maxLength: 3 }), fc.string({ maxLength: 3 }), fc.constant(null), fc.integer()), { maxLength: 3 });
    // The members the providers keep their vectors under, holding lists of anything.
    const embeddingAnswer = fc.oneof(
      answer,
      vectors.map((v) => ({ embeddings: v })),
      vectors.map((v) => ({ embeddings: { float: v } })),
      vectors.map((v) => ({ embedding: { values: v[0] } })),
      vectors.map((v) => ({ embeddings: v.map((values) => ({ values })) })),
      vectors.map((v) => ({ predictions: v.map((values) => ({ embeddings: { values } })) })),
      vectors.map((v) => ({ data: v.map((embedding, index) => ({ object: 'embedding', index, embedding })) })),
      vectors.map((v) => v.map((embedding) => ({ embedding }))),
    );
    for (const { label, adapter, operation } of embedders) {
      assertFor(label, () =>
        fc.assert(
          fc.property(embeddingAnswer, (body) => {
            let out: { data?: Array<{ embedding: unknown }> } | undefined;
            readsOrRefuses(() => (out = adapter.response!(body, call(operation, false)) as typeof out));
            for (const item of out?.data ?? []) expect(Array.isArray(item.embedding) && (item.embedding as unknown[]).every((n) => typeof n === 'number')).toBe(true);
          }),
          { numRuns: 200 },
        ),
      );
    }
  });

  it("error answers: each provider's error module maps any body to a gateway error", () => {
    // Members as providers' error bodies name them, holding anything JSON holds (an object named
    // toString or valueOf cannot even be turned into a string), or bytes that are not JSON at all.
    const member = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ toString: 1, valueOf: 1 }));
    const fields = fc.record(
      { message: member, type: member, code: member, param: member, status: member, details: member, __type: member, detail: member, errors: member },
      { requiredKeys: [], noNullPrototype: true },
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
      fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v))),
      fields.map((f) => Buffer.from(JSON.stringify(f))),
      fields.map((f) => Buffer.from(JSON.stringify({ error: f }))),
    );
    const headers = fc.record(
      {
        'retry-after': fc.string({ maxLength: 6 }),
        'x-amzn-errortype': fc.string({ maxLength: 10 }),
        'content-type': fc.constantFrom('application/json', 'text/plain', 'text/html'),
      },
      { requiredKeys: [], noNullPrototype: true },
    );
    for (const id of registry.ids()) {
      const provider = registry.get(id)!;
      assertFor(id, () =>
        fc.assert(
          fc.property(fc.integer({ min: 100, max: 599 }), body, headers, (status, bytes, h) => {
            expect(provider.mapError(status, bytes, h)).toBeInstanceOf(GatewayError);
          }),
          {
            numRuns: 150,
            examples: [
              [500, Buffer.from('{"error":{"message":"m","code":{"toString":1}}}'), {}],
              // names the providers look up in their tables that are members of every object's prototype
              [400, Buffer.from('{"__type":"__proto__","error":{"type":"__proto__","status":"constructor"}}'), { 'x-amzn-errortype': '__proto__' }],
              [404, Buffer.from('{"error":{"type":"toString","status":"__proto__"}}'), { 'x-amzn-errortype': 'constructor' }],
            ],
          },
        ),
      );
    }
  });

  it('stream events, in any order, and the end of the stream', () => {
    const event = fc.tuple(shaped, fc.constantFrom(...AWS_EVENTS), fc.constantFrom('event', 'exception'));
    for (const { label, adapter, operation } of adapters) {
      const stream = adapter.stream;
      if (!stream) continue;
      const frame = ([payload, eventType, messageType]: [unknown, string, string]): FramedEvent =>
        (stream.framing === 'aws-eventstream'
          ? { headers: { ':event-type': eventType, ':exception-type': eventType, ':message-type': messageType }, payload: Buffer.from(JSON.stringify(payload)) }
          : { data: JSON.stringify(payload) }) as FramedEvent;
      assertFor(label, () =>
        fc.assert(
          fc.property(fc.array(event, { maxLength: 6 }), (events) =>
            readsOrRefuses(() => {
              const map = stream.createMapper(call(operation, true));
              for (const e of events) map(frame(e));
              map.end?.();
            }),
          ),
          { numRuns: 100 },
        ),
      );
    }
  });
});
