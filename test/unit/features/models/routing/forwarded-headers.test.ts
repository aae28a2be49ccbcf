import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../../src/contract/errors/gateway-error.js';
import { addForwardedHeaders, forwardHeaderProblem, withoutOperatorHeaders } from '../../../../../src/features/models/routing/forwarded-headers.js';

describe('forwarded headers', () => {
  const operator = new Set(['x-org']);

  it('refuses host, hop-by-hop, gateway-set and operator names, in any casing', () => {
    for (const name of [
      'Host',
      'connection',
      'Keep-Alive',
      'TE',
      'trailer',
      'transfer-encoding',
      'upgrade',
      'content-length',
      'Accept-Encoding',
      'proxy-foo',
      'Authorization',
      'api-key',
      'x-gateway-token',
      'X-Org',
    ]) {
      expect(forwardHeaderProblem(name, operator), name).toBeDefined();
    }
    expect(forwardHeaderProblem('x-trace', operator)).toBeUndefined();
    expect(forwardHeaderProblem('x trace', operator)).toBe('is not a header name');
  });

  it('never joins or replaces a header the request already has, whatever its casing', () => {
    const headers: Record<string, string> = { 'X-Org': 'operator', authorization: 'Bearer k' };
    addForwardedHeaders(headers, ['x-org', 'Authorization', 'x-trace', 'x-missing'], { 'x-org': 'caller', authorization: 'Bearer caller', 'x-trace': 't-1' });
    expect(headers).toEqual({ 'X-Org': 'operator', authorization: 'Bearer k', 'x-trace': 't-1' });
  });

  it('refuses a value a header cannot carry with a 400 naming the header', () => {
    const err = (() => {
      try {
        addForwardedHeaders({}, ['x-trace'], { 'x-trace': 'a\r\nx-evil: 1' });
      } catch (e) {
        return e;
      }
    })() as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.code).toBe('missing_required_parameter');
    expect(err.param).toBe('x-trace');
  });

  it("removes the operator's headers that still carry the operator's value", () => {
    const headers: Record<string, string> = { 'X-Org': 'secret', authorization: 'Bearer caller', 'content-type': 'application/json' };
    withoutOperatorHeaders(headers, { 'x-org': 'secret', Authorization: 'Bearer operator' });
    expect(headers).toEqual({ authorization: 'Bearer caller', 'content-type': 'application/json' });
  });
});
