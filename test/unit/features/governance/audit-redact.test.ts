import { describe, expect, it } from 'vitest';
import { auditSafe } from '../../../../src/features/governance/audit/audit-redact.js';

describe('what the audit log keeps of an object', () => {
  it('drops fields named like secrets, at any depth, and keeps the rest', () => {
    const credential = {
      name: 'openai-main',
      provider: 'openai',
      api_key: 'sk-live-abcdefghijklmnop',
      settings: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: 'wJalrXUtnFEMI/K7MDENG', aws_session_token: 'FQoGZXIvYXdzE' },
      vertex_service_account_json: '{"private_key":"-----BEGIN"}',
      last4: 'mnop',
      limit_tokens: 100,
    };
    expect(auditSafe(credential)).toEqual({ name: 'openai-main', provider: 'openai', settings: { aws_access_key_id: 'AKIAEXAMPLE' }, last4: 'mnop', limit_tokens: 100 });
  });

  it('replaces gateway token values and the request secrets wherever they appear', () => {
    const value = 'gwt_abcDEF123_-xyz';
    const out = auditSafe({ token: value, note: `issued ${value}`, list: [value], header: 'Bearer provider-secret-123456' }, ['provider-secret-123456']);
    expect(out).toEqual({ note: 'issued [REDACTED]', list: ['[REDACTED]'], header: 'Bearer [REDACTED]' });
    expect(JSON.stringify(out)).not.toContain('gwt_');
  });
});
