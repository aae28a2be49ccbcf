import { describe, expect, it } from 'vitest';
import { vertexEndpoint } from '../../../../../src/features/models/providers/vertex-ai/endpoint.js';
import { AccessTokens } from '../../../../../src/features/models/providers/vertex-ai/access-tokens.js';
import type { ProviderCall } from '../../../../../src/features/models/providers/provider.js';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';

function call(options: Record<string, unknown>, baseUrl?: string): ProviderCall {
  return { target: { provider: 'vertex-ai', options, baseUrl }, body: { model: 'gemini-2.0-flash' } } as unknown as ProviderCall;
}

describe('vertex-ai endpoint', () => {
  const endpoint = vertexEndpoint('vertex-ai', undefined, {}, new AccessTokens({ provider: 'vertex-ai' }));

  it('puts the region in the host name and the path, with us-central1 as the default', () => {
    expect(endpoint.modelUrl(call({ vertex_project_id: 'p1', vertex_region: 'europe-west4' }), 'gemini-2.0-flash', 'generateContent')).toBe(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.0-flash:generateContent',
    );
    expect(endpoint.modelUrl(call({ vertex_project_id: 'p1' }), 'text-embedding-005', 'predict')).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/us-central1/publishers/google/models/text-embedding-005:predict',
    );
  });

  it('uses the global endpoint host for the global region', () => {
    expect(endpoint.modelUrl(call({ vertex_project_id: 'p1', vertex_region: 'global' }), 'gemini-2.5-pro', 'streamGenerateContent?alt=sse')).toBe(
      'https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
  });

  it('lets the configured base URL or a custom host replace the scheme and host', () => {
    const configured = vertexEndpoint('vertex-ai', 'https://vertex-proxy.internal', {}, new AccessTokens({ provider: 'vertex-ai' }));
    expect(configured.modelUrl(call({ vertex_project_id: 'p1', vertex_region: 'asia-northeast1' }), 'm', 'generateContent')).toBe(
      'https://vertex-proxy.internal/v1/projects/p1/locations/asia-northeast1/publishers/google/models/m:generateContent',
    );
    expect(configured.modelUrl(call({ vertex_project_id: 'p1' }, 'http://127.0.0.1:9/'), 'm', 'generateContent')).toBe(
      'http://127.0.0.1:9/v1/projects/p1/locations/us-central1/publishers/google/models/m:generateContent',
    );
  });

  it('rejects regions and projects that could change the address', () => {
    const err = (() => {
      try {
        endpoint.modelUrl(call({ vertex_project_id: 'p1', vertex_region: 'x.evil.com#' }), 'm', 'generateContent');
      } catch (e) {
        return e as GatewayError;
      }
      throw new Error('expected an error');
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.param).toBe('x-gateway-vertex-region');
    expect(() => endpoint.modelUrl(call({ vertex_project_id: '../../x' }), 'm', 'generateContent')).toThrow(/project/);
  });
});
