import { request } from 'undici';
import type { UpstreamClient } from '../../kernel/upstream/upstream-client.js';
import type { CheckInput, CheckResult } from './check-kind.js';

/**
 * Asks a webhook for a verdict: POST {guardrail, phase, text, model, request_id}; the answer
 * must be JSON {"verdict": true|false, "reason"?: string}. No answer in time, an error status or
 * another shape fails the check (fail closed), naming why.
 */
export async function callWebhook(upstream: UpstreamClient, url: string, headers: Record<string, string>, timeoutMs: number, input: CheckInput): Promise<CheckResult> {
  const payload = JSON.stringify({ guardrail: input.guardrailId, phase: input.phase, text: input.text, model: input.model ?? null, request_id: input.requestId });
  const signal = AbortSignal.any([input.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const res = await request(url, {
      dispatcher: upstream.agent,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: payload,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) return { passed: false, detail: `the webhook answered HTTP ${res.statusCode}` };
    let parsed: { verdict?: unknown; reason?: unknown } | null | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      return { passed: false, detail: 'the webhook answer is not JSON' };
    }
    if (typeof parsed?.verdict !== 'boolean') return { passed: false, detail: 'the webhook answer has no boolean verdict' };
    const reason = typeof parsed.reason === 'string' ? `: ${parsed.reason.slice(0, 200)}` : '';
    return { passed: parsed.verdict, detail: parsed.verdict ? 'the webhook passed it' : `the webhook refused it${reason}` };
  } catch (err) {
    const timedOut = signal.aborted && !input.signal.aborted;
    return {
      passed: false,
      detail: timedOut ? `the webhook did not answer within ${timeoutMs} ms` : `the webhook could not be reached (${(err as { code?: string }).code ?? 'error'})`,
    };
  }
}
