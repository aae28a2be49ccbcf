import { expect } from 'vitest';
import type { ConformanceCase, ErrorScenario } from '../case.js';
import { errorReplies, jsonReply } from '../replies.js';
import { geminiAnswers, geminiBody, geminiReply } from './google.js';

const MODEL = 'gemini-2.0-flash';
/** An OAuth access token given as the provider key (the service-account flow has its own tests in test/providers/vertex-ai.test.ts). */
const TOKEN = 'ya29.c.conformance-access-token-0001';
const LOCATION = '/v1/projects/acme-conformance/locations/us-east5/publishers/google/models';

const vertexAi: ConformanceCase = {
  provider: 'vertex-ai',
  settings: (url) => ({ baseUrl: url }),
  client: { apiKey: TOKEN, headers: { 'x-gateway-vertex-project-id': 'acme-conformance', 'x-gateway-vertex-region': 'us-east5' } },
  chatModel: MODEL,
  chatRoute: (stream) => `POST ${LOCATION}/${MODEL}:${stream ? 'streamGenerateContent' : 'generateContent'}`,
  checkHeaders(req) {
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    if (req.method === 'POST') expect(req.headers['content-type']).toBe('application/json');
    if (req.path.endsWith(':streamGenerateContent')) expect(req.url.endsWith('?alt=sse')).toBe(true);
    expect(Object.keys(req.headers).filter((h) => h.startsWith('x-gateway-'))).toEqual([]);
  },
  expectedBody: (scenario) => geminiBody(scenario),
  reply: geminiReply('vertex-ai'),
  answers: geminiAnswers('gemini-2.0-flash-001'),
  streamErrorCode: 'provider_error',
  embeddings: {
    model: 'text-embedding-005',
    route: `POST ${LOCATION}/text-embedding-005:predict`,
    reply: jsonReply('vertex-ai', 'predict'),
    expectedBodies: [{ instances: [{ content: 'first text' }, { content: 'second text' }] }],
    vectors: [
      [0.0213, -0.0412, 0.0077],
      [-0.0031, 0.0189, 0.0502],
    ],
    promptTokens: 8,
  },
  errors: errorReplies('vertex-ai') as Record<ErrorScenario, any>,
  rateLimitRetryAfter: '12',
  unsupported: ['images.generations', 'audio.speech'],
  wholeToolArguments: true,
};

export default vertexAi;
