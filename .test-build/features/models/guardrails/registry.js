import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
/** Guardrail problems found at start-up; one line per problem, naming its key path. */
export class GuardrailConfigError extends Error {
    problems;
    constructor(problems) {
        super(problems.join('; '));
        this.problems = problems;
        this.name = 'GuardrailConfigError';
    }
}
/**
 * Every guardrail of `guardrails.<id>`, compiled at start-up (each check by the factory of its
 * kind, built-in or plugin, its settings checked against the kind's schema), and how one is
 * applied to a text: all its checks run (in parallel); if any fails, the action decides: deny
 * throws a 422 guardrail_failed naming the guardrail and the check; flag marks the answer;
 * redact masks what the failing checks matched (a failing check with nothing to mask flags).
 */
export class GuardrailRegistry {
    guardrails = new Map();
    constructor(config, kinds, upstream) {
        const problems = [];
        for (const [id, raw] of Object.entries(config.guardrails ?? {})) {
            const g = raw;
            const checks = [];
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
                }
                catch (err) {
                    if (!(err instanceof ExtensionConfigError))
                        throw err;
                    problems.push(...err.problems);
                }
            });
            this.guardrails.set(id, { id, action: g.action ?? 'deny', checks });
        }
        if (problems.length)
            throw new GuardrailConfigError(problems);
    }
    has(id) {
        return this.guardrails.has(id);
    }
    get size() {
        return this.guardrails.size;
    }
    /** Ids not defined, as problem lines for `path` (e.g. `stages[4].guardrail.input`). */
    unknown(ids, path) {
        return (ids ?? []).flatMap((id, i) => (this.has(id) ? [] : [`${path}[${i}]: names no guardrail (guardrails.${id} is not defined)`]));
    }
    /** Applies guardrails in order to `view`; each sees the text the previous one left (masked). */
    async apply(ids, view, run) {
        let outcome = 'passed';
        for (const id of ids) {
            const guardrail = this.guardrails.get(id);
            if (!guardrail)
                throw new GatewayError('internal_error', `guardrail ${id} is not defined`);
            const result = await this.applyOne(guardrail, view, run);
            if (result === 'flagged' || (result === 'redacted' && outcome === 'passed'))
                outcome = result;
        }
        return outcome;
    }
    async applyOne(guardrail, view, run) {
        const input = {
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
        const failed = results.map((r, i) => ({ r, check: checks[i] })).filter((x) => !x.r.passed);
        if (!failed.length)
            return 'passed';
        if (guardrail.action === 'deny') {
            const first = failed[0];
            const what = run.phase === 'input' ? 'request' : 'answer';
            throw new GatewayError('guardrail_failed', `Guardrail "${guardrail.id}" denied the ${what}: ${first.check.type} check failed (${first.r.detail}).`);
        }
        if (guardrail.action === 'flag')
            return 'flagged';
        const redactions = failed.flatMap((x) => x.r.redactions ?? []);
        const unmaskable = failed.some((x) => !x.r.redactions?.length);
        if (redactions.length)
            view.redact(redactions);
        return unmaskable ? 'flagged' : 'redacted';
    }
}
//# sourceMappingURL=registry.js.map