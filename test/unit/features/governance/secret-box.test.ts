import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey, SecretBox } from '../../../../src/features/governance/credentials/secret-box.js';
import { keyMayUseModel, keyReachesEntry } from '../../../../src/features/governance/model-access.js';

const salt = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

describe('SecretBox (AES-256-GCM at rest)', () => {
  it('uses 64 hex digits and base64 of 32 bytes as they are, and stretches a passphrase with the salt', () => {
    const raw = randomBytes(32);
    expect(deriveKey(raw.toString('hex'), salt).equals(raw)).toBe(true);
    expect(deriveKey(raw.toString('base64'), salt).equals(raw)).toBe(true);
    const stretched = deriveKey('a passphrase of more than thirty-two characters', salt);
    expect(stretched).toHaveLength(32);
    expect(stretched.equals(deriveKey('a passphrase of more than thirty-two characters', Buffer.alloc(16)))).toBe(false);
  });

  it('seals with a fresh IV each time, opens with the right key only, and refuses an altered value', () => {
    const box = new SecretBox([randomBytes(32)]);
    const a = box.encrypt('sk-secret-value-0001');
    const b = box.encrypt('sk-secret-value-0001');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-secret');
    expect(box.decrypt(a)).toEqual({ plain: 'sk-secret-value-0001', keyIndex: 0 });
    expect(new SecretBox([randomBytes(32)]).decrypt(a)).toBeUndefined();
    const bytes = Buffer.from(a.slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(box.decrypt(`v1:${bytes.toString('base64')}`)).toBeUndefined();
    expect(box.decrypt('not sealed')).toBeUndefined();
  });

  it('opens what a previous key sealed and says which key it was', () => {
    const old = randomBytes(32);
    const sealed = new SecretBox([old]).encrypt('value');
    expect(new SecretBox([randomBytes(32), old]).decrypt(sealed)).toEqual({ plain: 'value', keyIndex: 1 });
  });
});

describe('model names and globs of keys', () => {
  it('matches * against any run of characters, without backtracking blow-ups', () => {
    expect(keyMayUseModel(['gpt-*'], 'gpt-4o')).toBe(true);
    expect(keyMayUseModel(['openai/*'], 'openai/gpt-4.1')).toBe(true);
    expect(keyMayUseModel(['*-mini'], 'gpt-4o-mini')).toBe(true);
    expect(keyMayUseModel(['gpt-*'], 'claude')).toBe(false);
    expect(keyMayUseModel(['a*a*a*a*a*a*a*a*b'], 'a'.repeat(5000))).toBe(false);
  });

  it('lets a key without models use every model, and a key with models only those', () => {
    expect(keyMayUseModel(undefined, 'anything')).toBe(true);
    expect(keyMayUseModel(['fast'], 'smart')).toBe(false);
    expect(keyReachesEntry(['openai/gpt-4.1'], 'openai/*')).toBe(true);
    expect(keyReachesEntry(['anthropic/*'], 'openai/*')).toBe(false);
  });
});
