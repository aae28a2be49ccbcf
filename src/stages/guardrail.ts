import { defineStage } from '../engine/stage.js';
import type { GatewayContext } from '../engine/context.js';
import { ensureJsonBody } from '../engine/request-body.js';
import { GatewayError } from '../errors/gateway-error.js';
import { PipelineError } from '../engine/pipeline-compiler.js';
import { GuardrailConfigError, type GuardrailOutcome, type GuardrailRegistry } from '../guardrails/registry.js';
import { inputPieces, outputPieces } from '../guardrails/extract.js';
import { TextView } from '../guardrails/text-view.js';
import { assembleStream, replay } from '../guardrails/stream-text.js';
import { guardrailRegistry } from '../routing/resilience-services.js';

interface GuardrailStageConfig {
  /** Guardrail ids run on every request of the pipeline, before the target's own. */
  input?: string[];
  /** Guardrail ids run on every answer of the pipeline, before the target's own. */
  output?: string[];
}

export const VERDICT_HEADER = 'x-gateway-guardrail-verdict';
const RANK: Record<GuardrailOutcome, number> = { passed: 0, redacted: 1, flagged: 2 };
const INPUT_DONE = 'guardrail.inputDone';

const NONE: string[] = [];

function union(a: string[] | undefined, b: string[] | undefined): string[] {
  if (!a?.length) return b ?? NONE;
  if (!b?.length) return a;
  return [...new Set([...a, ...b])];
}

function noteVerdict(ctx: GatewayContext, outcome: GuardrailOutcome): void {
  const current = ctx.responseHeaders[VERDICT_HEADER] as GuardrailOutcome | undefined;
  if (!current || RANK[outcome] > RANK[current]) ctx.responseHeaders[VERDICT_HEADER] = outcome;
}

function modelOf(ctx: GatewayContext): string | undefined {
  const model = ctx.target?.overrideParams?.model ?? ctx.body?.model;
  return typeof model === 'string' ? model : undefined;
}

async function checkInput(ctx: GatewayContext, registry: GuardrailRegistry, ids: string[], bodyLimit: number): Promise<void> {
  if (ctx.route.body === 'json') await ensureJsonBody(ctx, bodyLimit);
  const model = modelOf(ctx);
  // Input guardrails run once per request (and again only for a target that changes the model).
  const done = (ctx.state[INPUT_DONE] ??= new Set<string>()) as Set<string>;
  const key = `${ids.join(',')}|${model ?? ''}`;
  if (done.has(key)) return;
  const view = new TextView(ctx.route.body === 'json' ? inputPieces(ctx.route.operation, ctx.body) : []);
  const outcome = await registry.apply(ids, view, { phase: 'input', model, requestId: ctx.id, signal: ctx.signal });
  if (view.changed) ctx.bodyChanged = true;
  noteVerdict(ctx, outcome);
  done.add(key);
}

async function checkOutput(ctx: GatewayContext, registry: GuardrailRegistry, ids: string[]): Promise<void> {
  const response = ctx.response;
  if (!response || response.status < 200 || response.status >= 300) return;
  const run = { phase: 'output' as const, model: modelOf(ctx), requestId: ctx.id, signal: ctx.signal };
  if (response.kind === 'json') {
    let body = response.body;
    if (body === undefined && response.raw) {
      try {
        body = JSON.parse(response.raw.toString('utf8'));
      } catch {
        return;
      }
    }
    const view = new TextView(outputPieces(body));
    const outcome = await registry.apply(ids, view, run);
    if (view.changed) {
      response.body = body;
      response.raw = undefined;
    }
    noteVerdict(ctx, outcome);
  } else if (response.kind === 'stream') {
    const assembled = await assembleStream(response.parts, response.format);
    if (!assembled.complete) {
      throw new GatewayError('provider_error', `The ${ctx.target?.provider ?? 'upstream'} stream ended before the answer was complete.`, {
        provider: ctx.target?.provider,
        retryable: true,
      });
    }
    const view = new TextView(assembled.pieces);
    const outcome = await registry.apply(ids, view, run);
    response.parts = replay(assembled.parts());
    noteVerdict(ctx, outcome);
  }
}

/**
 * Guardrails of guardrails.<id>: the stage's own `input` / `output` lists plus the current
 * target's input_guardrails / output_guardrails (routing config). Input guardrails check the
 * request's text before anything is sent upstream (deny: 422; redact: the body sent upstream
 * is masked). Output guardrails check the answer; a streamed answer is read to its end first,
 * checked, then replayed (so a denied stream is a plain 422 and never a half-sent answer).
 * Runs once per target attempt, after route.
 */
export default defineStage<GuardrailStageConfig>({
  name: 'guardrail',
  description: 'Runs input and output guardrails (deny, flag, redact).',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      input: { type: 'array', items: { type: 'string' } },
      output: { type: 'array', items: { type: 'string' } },
    },
  },
  create(config, services) {
    let registry: GuardrailRegistry;
    try {
      registry = guardrailRegistry(services);
    } catch (err) {
      if (err instanceof GuardrailConfigError) throw new PipelineError(err.problems);
      throw err;
    }
    const unknown = [...registry.unknown(config.input, 'input'), ...registry.unknown(config.output, 'output')];
    if (unknown.length) throw new Error(unknown.join('; '));
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    return async (ctx, next) => {
      const input = union(config.input, ctx.target?.inputGuardrails);
      const output = union(config.output, ctx.target?.outputGuardrails);
      if (input.length) await checkInput(ctx, registry, input, bodyLimit);
      await next();
      if (output.length) await checkOutput(ctx, registry, output);
    };
  },
});
