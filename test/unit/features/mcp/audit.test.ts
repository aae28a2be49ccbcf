import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { captureLogger, withoutTime } from '../../../helpers/log-capture.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';
import { registerSecrets } from '../../../../src/kernel/errors/redact.js';
import { RequestLog } from '../../../../src/kernel/http/request-log.js';
import { AuditLog, who, type AuditEntry } from '../../../../src/features/mcp/audit.js';
import type { Identity } from '../../../../src/kernel/engine/context.js';

const alice: Identity = { kind: 'api-key', id: 'config-key-0', user: 'alice@example.com', scopes: ['mcp:read'] };

/** The line the audit log wrote before its fixed serializer: pino's, for the same object. */
function pinoLine(logger: ReturnType<typeof createLogger>, identity: Identity, entry: AuditEntry): void {
  const line = { audit: 'mcp', who: who(identity), credential: `${identity.kind}:${identity.id}`, ...entry, ms: Math.round(entry.ms * 100) / 100 };
  if (entry.allowed) logger.info(line, 'mcp access');
  else logger.warn(line, 'mcp access denied');
}

describe('the MCP audit line', () => {
  const entries: AuditEntry[] = [
    { method: 'tools/call', server: 'bench', name: 'echo', allowed: true, outcome: 'ok', ms: 1.23456 },
    { method: 'tools/call', server: 'bench', name: undefined, allowed: false, reason: 'the tool is "not" allowed\n', outcome: 'denied', ms: 0 },
    { method: 'tools/list', server: 's', allowed: true, ms: 12.005, shown: 3, hidden: 1 },
    { method: 'tools/call', server: 's', name: 'n\u00e9\ud83d\ude00'.repeat(30), allowed: true, outcome: 'tool_error', ms: Number.NaN },
  ];

  it('is the line pino writes for the same fields, in the same order', () => {
    for (const entry of entries) {
      const fast = captureLogger('info');
      const slow = captureLogger('info');
      new AuditLog(fast.logger).record(alice, entry);
      pinoLine(slow.logger, alice, entry);
      expect(fast.lines).toHaveLength(1);
      expect(withoutTime(fast.lines[0]!)).toBe(withoutTime(slow.lines[0]!));
    }
  });

  it('follows the logger level: refusals are warnings, allowed calls info lines', () => {
    const { logger, lines } = captureLogger('warn');
    const audit = new AuditLog(logger);
    audit.record(alice, entries[0]!);
    expect(lines).toHaveLength(0);
    audit.record(alice, entries[1]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, audit: 'mcp', who: 'alice@example.com', outcome: 'denied', msg: 'mcp access denied' });
  });

  it('masks a gateway secret in any field', () => {
    registerSecrets(['audit-line-secret-value-98765']);
    const { logger, lines } = captureLogger('info');
    new AuditLog(logger).record(
      { ...alice, user: 'audit-line-secret-value-98765' },
      { method: 'tools/call', server: 's', name: 'x-audit-line-secret-value-98765', allowed: true, ms: 1 },
    );
    expect(lines[0]).not.toContain('audit-line-secret-value-98765');
    expect(JSON.parse(lines[0]!)).toMatchObject({ who: '[REDACTED]', msg: 'mcp access' });
  });

  it('masks a secret the gateway learns after the same fields were written once', () => {
    const { logger, lines } = captureLogger('info');
    const audit = new AuditLog(logger);
    const caller = { ...alice, user: 'audit-line-later-secret-24680' };
    const entry: AuditEntry = { method: 'tools/call', server: 's', name: 't', allowed: true, ms: 1 };
    audit.record(caller, entry);
    expect(JSON.parse(lines[0]!).who).toBe('audit-line-later-secret-24680');
    registerSecrets(['audit-line-later-secret-24680']);
    audit.record(caller, { ...entry, ms: 2 });
    expect(lines[1]).not.toContain('audit-line-later-secret-24680');
    expect(JSON.parse(lines[1]!)).toMatchObject({ who: '[REDACTED]', ms: 2 });
  });

  it('keeps its order with the request lines and other lines on a pino destination', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
    try {
      const file = join(dir, 'log.jsonl');
      const logger = createLogger('info', pino.destination({ dest: file, sync: true }));
      const requests = new RequestLog(logger);
      const audit = new AuditLog(logger);
      audit.record(alice, entries[0]!);
      requests.write('info', { requestId: 'a', method: 'POST', route: 'POST /mcp', status: 200, provider: 'none', retries: 0, ms: 1 });
      logger.warn('between');
      audit.record(alice, entries[2]!);
      await new Promise((r) => setImmediate(r));
      const records = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(records.map((r) => r.audit ?? r.requestId ?? r.msg)).toEqual(['mcp', 'a', 'between', 'mcp']);
      expect(records[3]).toMatchObject({ method: 'tools/list', shown: 3, hidden: 1, ms: 12.01 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
