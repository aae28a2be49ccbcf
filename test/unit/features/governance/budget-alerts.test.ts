import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { alertSink, type BudgetAlert } from '../../../../src/features/governance/budgets/budget-alerts.js';
import { captureLogger } from '../../../helpers/log-capture.js';

const alert: BudgetAlert = {
  budget: 'team five',
  budget_id: 'team:t5:0',
  scope: 'team',
  subject: 't5',
  threshold: 90,
  spent_usd: '9.000000',
  limit_usd: '10.000000',
  spent_tokens: 1200,
  limit_tokens: null,
  window_reset: 1_800_000_000,
};

const received: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
let answer = 204;
const server = createServer((req, res) => {
  let text = '';
  req.on('data', (c: Buffer) => (text += c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: JSON.parse(text) });
    res.statusCode = answer;
    res.end();
  });
});
afterAll(() => server.close());

async function url(): Promise<string> {
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('budget alerts', () => {
  it('POST the alert as JSON with the configured headers, and log it at warn', async () => {
    const { logger, lines } = captureLogger();
    const send = alertSink(logger, { url: await url(), headers: { authorization: 'Bearer hook-secret' } });
    send(alert);
    await until(() => received.length === 1);
    expect(received[0]!.body).toEqual(alert);
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers.authorization).toBe('Bearer hook-secret');
    const line = JSON.parse(lines.find((l) => l.includes('budget alert'))!);
    expect(line).toMatchObject({ level: 40, budget: 'team:t5:0', threshold: 90, spent_usd: '9.000000' });
    expect(lines.join('\n')).not.toContain('hook-secret');
  });

  it('a refusing or unreachable webhook is logged, never thrown', async () => {
    const { logger, lines } = captureLogger();
    answer = 500;
    alertSink(logger, { url: await url() })(alert);
    await until(() => lines.some((l) => l.includes('webhook refused')));
    expect(lines.some((l) => l.includes('webhook refused') && l.includes('"status":500'))).toBe(true);
    alertSink(logger, { url: 'http://127.0.0.1:1/hook' })(alert);
    await until(() => lines.some((l) => l.includes('webhook failed')));
    expect(lines.some((l) => l.includes('webhook failed'))).toBe(true);
  });
});
