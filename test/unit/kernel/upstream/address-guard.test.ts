import { describe, expect, it } from 'vitest';
import { BlockedAddressError, guardedLookup, isPublicAddress, literalHostAllowed } from '../../../../src/kernel/upstream/address-guard.js';

describe('the outbound-address rule for caller-chosen URLs', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast and reserved addresses, also inside IPv6', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '64:ff9b::10.0.0.1',
      'not-an-address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(address), address).toBe(true);
  });

  it('checks literal hosts before any connection; names are left to the lookup', () => {
    expect(literalHostAllowed(new URL('https://127.0.0.1/x'))).toBe(false);
    expect(literalHostAllowed(new URL('https://[::1]/x'))).toBe(false);
    expect(literalHostAllowed(new URL('https://localhost/x'))).toBe(false);
    expect(literalHostAllowed(new URL('https://app.localhost/x'))).toBe(false);
    expect(literalHostAllowed(new URL('https://8.8.8.8/x'))).toBe(true);
    expect(literalHostAllowed(new URL('https://client.example.com/x'))).toBe(true);
    expect(literalHostAllowed(new URL('https://127.0.0.1/x'), true)).toBe(true);
  });

  it('fails a lookup that resolves to a non-public address (both answer forms), and passes it with allowPrivate', async () => {
    const lookup = guardedLookup(false);
    const single = await new Promise<unknown>((resolve) => lookup('localhost', {}, (err) => resolve(err)));
    expect(single).toBeInstanceOf(BlockedAddressError);
    const all = await new Promise<unknown>((resolve) => lookup('localhost', { all: true }, (err) => resolve(err)));
    expect(all).toBeInstanceOf(BlockedAddressError);
    const allowed = await new Promise<{ err: unknown; address: unknown }>((resolve) =>
      guardedLookup(true)('localhost', { all: true }, (err, address) => resolve({ err, address })),
    );
    expect(allowed.err).toBeNull();
    expect(Array.isArray(allowed.address)).toBe(true);
  });
});
