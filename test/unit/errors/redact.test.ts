import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretField, redactObject, redactSecrets } from '../../../src/errors/redact.js';

describe('redactSecrets', () => {
  it('masks every occurrence of a known secret, whatever its shape', () => {
    expect(redactSecrets('key plainsecretvalue4242 and again plainsecretvalue4242.', ['plainsecretvalue4242'])).toBe(`key ${REDACTED} and again ${REDACTED}.`);
  });

  it('masks bearer values and well-known key shapes it was not told about', () => {
    expect(redactSecrets('Authorization: Bearer abcdefgh12345678', [])).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('Incorrect API key provided: sk-proj-abcdefgh12345678.', [])).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(redactSecrets('gsk_x and gsk-abcdefgh1234', [])).toBe(`gsk_x and ${REDACTED}`);
  });

  it('leaves ordinary text and too-short "secrets" alone', () => {
    expect(redactSecrets('The model `gpt-4o` does not exist.', ['abc', undefined, ''])).toBe('The model `gpt-4o` does not exist.');
  });
});

describe('redactObject', () => {
  it('masks fields whose names say they hold a secret, at any depth', () => {
    const out = redactObject({
      headers: { authorization: 'Bearer x', 'x-gateway-api-key': 'k', 'content-type': 'application/json' },
      target: { provider: 'openai', api_key: 'k2', aws_secret_access_key: 's', aws_session_token: 't', password: 'p' },
      list: [{ token: 'abc' }],
    });
    expect(out).toEqual({
      headers: { authorization: REDACTED, 'x-gateway-api-key': REDACTED, 'content-type': 'application/json' },
      target: { provider: 'openai', api_key: REDACTED, aws_secret_access_key: REDACTED, aws_session_token: REDACTED, password: REDACTED },
      list: [{ token: REDACTED }],
    });
  });

  it('masks known secret values inside any string', () => {
    expect(redactObject({ upstream_body: '{"error":"bad key plainsecretvalue4242"}', n: 3 }, ['plainsecretvalue4242'])).toEqual({
      upstream_body: `{"error":"bad key ${REDACTED}"}`,
      n: 3,
    });
  });

  it('knows the secret field names', () => {
    for (const name of ['Authorization', 'x-api-key', 'apiKey', 'client_secret', 'refresh_token', 'vertex_service_account_json', 'cookie']) {
      expect(isSecretField(name)).toBe(true);
    }
    for (const name of ['model', 'provider', 'max_tokens', 'tokens', 'prompt_tokens_details']) expect(isSecretField(name)).toBe(false);
  });
});
