import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../../../src/kernel/engine/context.js';
import { presentedGatewayKey } from '../../../../src/features/auth/provider-route-auth.js';

const GWT = 'gwt_0123456789abcdef';
const CONFIG_KEY = 'cfg-key-0123456789';
const PLACEHOLDER = 'sk-placeholder-of-the-sdk';

/** The key found in `headers` (lower-case names, as node gives them), with or without auth.providerRoutes. */
const found = (headers: Record<string, string>, demand: boolean) => presentedGatewayKey({ headers } as unknown as GatewayContext, demand);

describe('the gateway key of a provider-route request (contract section 8)', () => {
  it('is a gwt_ value in any of the four headers, x-gateway-token first, whether or not a gateway credential is demanded', () => {
    for (const demand of [false, true]) {
      expect(found({ authorization: `Bearer ${GWT}` }, demand)).toEqual({ value: GWT, header: 'authorization' });
      expect(found({ 'x-api-key': GWT }, demand)).toEqual({ value: GWT, header: 'x-api-key' });
      expect(found({ 'api-key': GWT }, demand)).toEqual({ value: GWT, header: 'api-key' });
      expect(found({ 'x-gateway-token': CONFIG_KEY, authorization: `Bearer ${GWT}` }, demand)).toEqual({ value: CONFIG_KEY, header: 'x-gateway-token' });
      // an SDK's placeholder in Authorization does not hide the key beside it
      expect(found({ authorization: `Bearer ${PLACEHOLDER}`, 'x-api-key': GWT }, demand)).toEqual({ value: GWT, header: 'x-api-key' });
      expect(found({ authorization: `Bearer ${PLACEHOLDER}`, 'api-key': GWT }, demand)).toEqual({ value: GWT, header: 'api-key' });
    }
  });

  it('leaves a bearer value without the prefix to the provider unless a gateway credential is demanded', () => {
    expect(found({ authorization: `Bearer ${PLACEHOLDER}` }, false)).toBeUndefined();
    expect(found({ 'x-api-key': CONFIG_KEY }, false)).toBeUndefined();
    expect(found({ authorization: `Bearer ${CONFIG_KEY}` }, true)).toEqual({ value: CONFIG_KEY, header: 'authorization' });
    expect(found({ 'x-api-key': CONFIG_KEY }, true)).toEqual({ value: CONFIG_KEY, header: 'x-api-key' });
    // two values without the prefix: the bearer's
    expect(found({ authorization: `Bearer ${CONFIG_KEY}`, 'x-api-key': 'other-value-0123' }, true)).toEqual({ value: CONFIG_KEY, header: 'authorization' });
    expect(found({}, true)).toBeUndefined();
  });
});
