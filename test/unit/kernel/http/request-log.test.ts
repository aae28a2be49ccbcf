import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { captureLogger, withoutTime } from '../../../helpers/log-capture.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';
import { RequestLog, type RequestLine } from '../../../../src/kernel/http/request-log.js';
import { registerSecrets } from '../../../../src/kernel/errors/redact.js';

describe('the per-request log line', () => {
  it('is the line pino writes for the same fields', () => {
    const fields: RequestLine = {
      requestId: 'b3c1d3a0-4f7e-4c1e-9d1e-2f5a6b7c8d9e',
      method: 'POST',
      route: 'POST /v1/chat/completions',
      status: 200,
      provider: 'openai',
      retries: 0,
      ms: 1.25,
    };
    const fast = captureLogger('info');
    const slow = captureLogger('info');
    new RequestLog(fast.logger).write('info', fields);
    slow.logger.info(fields, 'request');
    expect(withoutTime(fast.lines[0]!)).toBe(withoutTime(slow.lines[0]!));
    const full: RequestLine = { ...fields, status: 502, provider: 'x"y', user: 'alice', error: 'provider_error', clientGone: true };
    new RequestLog(fast.logger).write('info', full);
    slow.logger.info(full, 'request');
    expect(withoutTime(fast.lines[1]!)).toBe(withoutTime(slow.lines[1]!));
    expect(JSON.parse(fast.lines[1]!)).toMatchObject({ level: 30, service: 'ai-gateway', provider: 'x"y', user: 'alice', clientGone: true, msg: 'request' });
    expect(new Date(JSON.parse(fast.lines[1]!).time).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('follows the logger level', () => {
    const { logger, lines } = captureLogger('info');
    const log = new RequestLog(logger);
    log.write('debug', { requestId: 'r', method: 'GET', route: 'GET /health', status: 200, provider: 'none', retries: 0, ms: 0.1 });
    expect(lines).toHaveLength(0);
    logger.level = 'debug';
    log.write('debug', { requestId: 'r', method: 'GET', route: 'GET /health', status: 200, provider: 'none', retries: 0, ms: 0.1 });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 20, route: 'GET /health', msg: 'request' });
  });

  it('masks a gateway secret in the user name', () => {
    registerSecrets(['request-log-secret-value-1234']);
    const { logger, lines } = captureLogger('info');
    new RequestLog(logger).write('info', {
      requestId: 'r',
      method: 'POST',
      route: 'POST /mcp',
      status: 200,
      provider: 'none',
      retries: 0,
      ms: 2,
      user: 'request-log-secret-value-1234',
    });
    expect(lines[0]).not.toContain('request-log-secret-value-1234');
    expect(JSON.parse(lines[0]!).user).toBe('[REDACTED]');
  });
});

describe('request lines on pino destinations', () => {
  const line = (requestId: string): RequestLine => ({ requestId, method: 'POST', route: 'POST /v1/chat/completions', status: 200, provider: 'openai', retries: 0, ms: 1 });

  it('are handed over together at the end of the turn, before any other log line, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'request-log-'));
    try {
      const file = join(dir, 'log.jsonl');
      const logger = createLogger('info', pino.destination({ dest: file, sync: true }));
      const log = new RequestLog(logger);
      const read = () =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      log.write('info', line('a'));
      log.write('info', line('b'));
      expect(read()).toEqual([]);
      logger.warn('between');
      log.write('info', line('c'));
      expect(read().map((r) => r.requestId ?? r.msg)).toEqual(['a', 'b', 'between']);
      await new Promise((r) => setImmediate(r));
      expect(read().map((r) => r.requestId ?? r.msg)).toEqual(['a', 'b', 'between', 'c']);
      // Many lines: handed over in batches of at most 4 KiB, each a run of whole lines.
      for (let i = 0; i < 100; i++) log.write('info', line(`n${i}`));
      await new Promise((r) => setImmediate(r));
      const records = read();
      expect(records.slice(4).map((r) => r.requestId)).toEqual(Array.from({ length: 100 }, (_, i) => `n${i}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
