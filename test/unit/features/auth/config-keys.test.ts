import { describe, expect, it } from 'vitest';
import { ConfigKeys, expiresAtSeconds } from '../../../../src/features/auth/config-keys.js';
import { bearerValue, hashSecret, newTokenValue, parseLifetime, secretsEqual } from '../../../../src/features/auth/secrets.js';

describe('config keys and secrets', () => {
  it('finds a key by value, keeps no value, and reports expiry', () => {
    const keys = new ConfigKeys([
      { key: 'first-key-value-1', user: 'one', scopes: ['mcp:read'] },
      { key: 'second-key-value-2', user: 'two', expiresAt: 1 },
    ]);
    expect(keys.check('first-key-value-1')).toMatchObject({ ok: true, identity: { kind: 'api-key', id: 'config-key-0', user: 'one', scopes: ['mcp:read'] } });
    expect(keys.check('second-key-value-2')).toEqual({ ok: false, reason: 'expired' });
    expect(keys.check('first-key-value-')).toEqual({ ok: false, reason: 'unknown' });
    expect(JSON.stringify(keys)).not.toContain('first-key-value-1');
    expect(keys.check('first-key-value-1').ok && (keys.check('first-key-value-1') as any).identity.scopes).toEqual(['mcp:read']);
    expect((new ConfigKeys([{ key: 'k'.repeat(10) }]).check('k'.repeat(10)) as any).identity.scopes).toEqual(['mcp:read', 'mcp:write']);
  });

  it('expiresAt takes Unix seconds or ISO 8601', () => {
    expect(expiresAtSeconds(1700000000, 'x')).toBe(1700000000);
    expect(expiresAtSeconds('1700000000', 'x')).toBe(1700000000);
    expect(expiresAtSeconds('2023-11-14T22:13:20Z', 'x')).toBe(1700000000);
    expect(() => expiresAtSeconds('next tuesday', 'auth.apiKeys[0].expiresAt')).toThrow(/auth.apiKeys\[0\].expiresAt/);
  });

  it('token values are prefixed, high-entropy and distinct; stored as SHA-256', () => {
    const a = newTokenValue();
    expect(a).toMatch(/^gwt_[A-Za-z0-9_-]{43}$/);
    expect(newTokenValue()).not.toBe(a);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lifetimes, bearer values and constant-time comparison', () => {
    expect(parseLifetime('30d')).toBe(30 * 86400);
    expect(parseLifetime('12h')).toBe(12 * 3600);
    expect(parseLifetime('15m')).toBe(900);
    expect(parseLifetime('45s')).toBe(45);
    expect(bearerValue('Bearer abc')).toBe('abc');
    expect(bearerValue('bearer  abc ')).toBe('abc');
    expect(bearerValue('Basic abc')).toBeUndefined();
    expect(bearerValue(undefined)).toBeUndefined();
    expect(secretsEqual('same-secret', 'same-secret')).toBe(true);
    expect(secretsEqual('same-secret', 'same-secreT')).toBe(false);
    expect(secretsEqual('short', 'a-much-longer-secret')).toBe(false);
  });
});
