import type { GatewayConfig, GuardrailConfig } from '../../generated/gateway.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import { ExtensionConfigError, type ExtensionRegistry } from '../../kernel/engine/extension.js';
import type { UpstreamClient } from '../../kernel/upstream/upstream-client.js';
import type { CheckInput, CheckRun, GuardrailCheckDefinition } from './check-kind.js';
import type { Redaction, TextView } from './text-view.js';

export type GuardrailAction = 'deny' | 'flag' | 'redact';
export type GuardrailOutcome = 'passed' | 'flagged' | 'redacted';

/** One check of a guardrail, made by its kind's factory. */
export interface CompiledCheck {
  type: string;
  runsWithoutText: boolean;
  run: CheckRun;
}

export interface CompiledGuardrail {
  id: string;
  action: GuardrailAction;
  checks: CompiledCheck[];
}

/** Guardrail problems found at start-up; one line per problem, naming its key path. */
export class GuardrailConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'GuardrailConfigError';
  }
}

export interface GuardrailRunContext {
  phase: 'input' | 'output';
  model?: string;
  requestId: string;
  signal: AbortSignal;
  /** What a deny names as refused (default: "request" for input, "answer" for output). */
  subject?: string;
}

/**
 * Every guardrail of `guardrails.<id>`, compiled at start-up (each check by the factory of its
 * kind, built-in or plugin, its settings checked against the kind's schema), and how one is
 * applied to a text: all its checks run (in parallel); if any fails, the action decides: deny
 * throws a 422 guardrail_failed naming the guardrail and the check; flag marks the answer;
 * redact masks what the failing checks matched (a failing check with nothing to mask flags).
 */
export class GuardrailRegistry {
  private readonly guardrails = new Map<string, CompiledGuardrail>();

  constructor(config: GatewayConfig, kinds: ExtensionRegistry<GuardrailCheckDefinition>, upstream: () => UpstreamClient) {
    const problems: string[] = [];
    for (const [id, raw] of Object.entries(config.guardrails ?? {})) {
      const g = raw as GuardrailConfig;
      const checks: CompiledCheck[] = [];
      g.checks.forEach((check, i) => {
        const path = `guardrails.${id}.checks[${i}]`;
        const def = kinds.get(check.type);
        if (!def) {
          problems.push(`${path}.type: unknown check type ${check.type} (known: ${kinds.names().join(', ')})`);
          return;
        }
        try {
          const settings = kinds.validate(check.type, check, path);
          checks.push({ type: check.type, runsWithoutText: def.runsWithoutText === true, run: def.create(settings, { path, upstream }) });
        } catch (err) {
          if (!(err instanceof ExtensionConfigError)) throw err;
          problems.push(...err.problems);
        }
      });
      this.guardrails.set(id, { id, action: g.action ?? 'deny', checks });
    }
    if (problems.length) throw new GuardrailConfigError(problems);
  }

  has(id: string): boolean {
    return this.guardrails.has(id);
  }

  get size(): number {
    return this.guardrails.size;
  }

  /** Ids not defined, as problem lines for `path` (e.g. `stages[4].guardrail.input`). */
  unknown(ids: string[] | undefined, path: string): string[] {
    return (ids ?? []).flatMap((id, i) => (this.has(id) ? [] : [`${path}[${i}]: names no guardrail (guardrails.${id} is not defined)`]));
  }

  /** Applies guardrails in order to `view`; each sees the text the previous one left (masked). */
  async apply(ids: string[], view: TextView, run: GuardrailRunContext): Promise<GuardrailOutcome> {
    let outcome: GuardrailOutcome = 'passed';
    for (const id of ids) {
      const guardrail = this.guardrails.get(id);
      if (!guardrail) throw new GatewayError('internal_error', `guardrail ${id} is not defined`);
      const result = await this.applyOne(guardrail, view, run);
      if (result === 'flagged' || (result === 'redacted' && outcome === 'passed')) outcome = result;
    }
    return outcome;
  }

  private async applyOne(guardrail: CompiledGuardrail, view: TextView, run: GuardrailRunContext): Promise<GuardrailOutcome> {
    const input: CheckInput = {
      text: view.text,
      hasText: !view.empty,
      phase: run.phase,
      model: run.model,
      guardrailId: guardrail.id,
      requestId: run.requestId,
      signal: run.signal,
    };
    const checks = guardrail.checks.filter((c) => input.hasText || c.runsWithoutText);
    const results = await Promise.all(checks.map((c) => c.run(input)));
    const failed = results.map((r, i) => ({ r, check: checks[i]! })).filter((x) => !x.r.passed);
    if (!failed.length) return 'passed';
    if (guardrail.action === 'deny') {
      const first = failed[0]!;
      const what = run.subject ?? (run.phase === 'input' ? 'request' : 'answer');
      throw new GatewayError('guardrail_failed', `Guardrail "${guardrail.id}" denied the ${what}: ${first.check.type} check failed (${first.r.detail}).`);
    }
    if (guardrail.action === 'flag') return 'flagged';
    const redactions: Redaction[] = failed.flatMap((x) => x.r.redactions ?? []);
    const unmaskable = failed.some((x) => !x.r.redactions?.length);
    if (redactions.length) view.redact(redactions);
    return unmaskable ? 'flagged' : 'redacted';
  }
}
