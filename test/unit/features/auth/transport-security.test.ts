import { describe, expect, it } from 'vitest';
import { credentialTransportAllowed, isLoopbackAddress } from '../../../../src/features/auth/transport-security.js';

describe('isLoopbackAddress', () => {
  it('knows loopback addresses in every form, the same when asked again', () => {
    const cases: Array<[string | undefined, boolean]> = [
      ['127.0.0.1', true],
      ['127.255.3.4', true],
      ['::1', true],
      ['::ffff:127.0.0.1', true],
      ['10.0.0.1', false],
      ['::ffff:10.0.0.1', false],
      ['::2', false],
      ['127.example', false],
      ['fe80::1', false],
      ['', false],
      [undefined, false],
    ];
    for (let round = 0; round < 2; round++) for (const [address, loopback] of cases) expect(isLoopbackAddress(address), `${address} (round ${round})`).toBe(loopback);
  });

  it('allows credentials over TLS, on loopback, or where plain HTTP is allowed', () => {
    expect(credentialTransportAllowed({ encrypted: true, localAddress: '10.0.0.1' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '127.0.0.1' }, {})).toBe(true);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '10.0.0.1' }, {})).toBe(false);
    expect(credentialTransportAllowed({ encrypted: false, localAddress: '10.0.0.1' }, { server: { allowInsecureHttp: true } })).toBe(true);
  });
});
