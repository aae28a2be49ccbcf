import { describe, expect, it } from 'vitest';
import { captureLogger } from '../../../helpers/log-capture.js';
import { maskSecretFields } from '../../../../src/kernel/observability/logger.js';

describe('log lines', () => {
  it('mask secret fields by name, at the top, one level down and in request headers', () => {
    const { logger, lines } = captureLogger();
    const fields = {
      headers: { authorization: 'Bearer opaque', accept: 'application/json', 'x-api-key': 'k1', 'api-key': 'k2', 'proxy-authorization': 'Basic b3BhcXVl' },
      req: { headers: { cookie: 'session=abc', host: 'gw' }, url: '/v1/x' },
      apiKey: 'plain',
      provider: { clientSecret: 'cs', region: 'eu', token: 'tk' },
      token: 'tt',
    };
    logger.info(fields, 'with secrets');
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({
      msg: 'with secrets',
      service: 'ai-gateway',
      headers: { authorization: '[REDACTED]', accept: 'application/json', 'x-api-key': '[REDACTED]', 'api-key': '[REDACTED]', 'proxy-authorization': '[REDACTED]' },
      req: { headers: { cookie: '[REDACTED]', host: 'gw' }, url: '/v1/x' },
      apiKey: '[REDACTED]',
      provider: { clientSecret: '[REDACTED]', region: 'eu', token: '[REDACTED]' },
      token: '[REDACTED]',
    });
    // The caller's object is left as it was.
    expect(fields.headers.authorization).toBe('Bearer opaque');
    expect(fields.provider.clientSecret).toBe('cs');
  });

  it('leave a line without secret fields as it is (the same object)', () => {
    const fields = { requestId: 'r1', route: 'POST /v1/chat/completions', status: 200, nested: { tokens: 3 } };
    expect(maskSecretFields(fields)).toBe(fields);
    const { logger, lines } = captureLogger();
    logger.info(fields, 'request');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, ...fields, msg: 'request' });
  });

  it('still mask credential shapes in any field', () => {
    const { logger, lines } = captureLogger();
    logger.warn({ detail: 'upstream said: Authorization: Bearer abcdefghijklmnopqrstuvwxyz' }, 'odd');
    expect(lines[0]).not.toContain('abcdefghijklmnopqrstuvwxyz');
    expect(JSON.parse(lines[0]!).detail).toContain('[REDACTED]');
  });
});
