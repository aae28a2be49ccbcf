import type { GuardrailStageConfig } from '../generated/stages/guardrail.js';
import { schemaDocument } from '../kernel/config/schema-validator.js';
import { defineStage } from '../kernel/engine/stage.js';
import { defineSlot } from '../kernel/engine/slot.js';
import { BODY, BODY_CHANGED, ensureJsonBody } from '../kernel/engine/request-body.js';
import { PipelineError } from '../kernel/engine/pipeline-compiler.js';
import { GatewayError } from '../contract/errors/gateway-error.js';
import { TARGET, answerJson, modelAnswer, type ModelContext } from '../features/models/index.js';
import {
  assembleStream,
  GuardrailConfigError,
  guardrailRegistry,
  inputPieces,
  outputPieces,
  replay,
  TextView,
  type GuardrailOutcome,
  type GuardrailRegistry,
} from '../features/guardrails/index.js';
import { GATEWAY_CALLER } from '../features/auth/index.js';
import { MCP_ANSWER_STEPS, MCP_MESSAGE, TOOL_GUARD, toolGuard, toolGuardrails } from '../features/mcp/index.js';
import { RESPONSE } from '../kernel/engine/context.js';

type GatewayContext = ModelContext;

export const VERDICT_HEADER = 'x-gateway-guardrail-verdict';
const RANK: Record<GuardrailOutcome, number> = { passed: 0, redacted: 1, flagged: 2 };
/** Input guardrail runs already done for this request (ids and model). */
const INPUT_DONE = defineSlot<Set<string>>('guardrail-input-done', 'the input guardrails already run');

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
  const model = ctx.get(TARGET)?.overrideParams?.model ?? ctx.get(BODY)?.model;
  return typeof model === 'string' ? model : undefined;
}

async function checkInput(ctx: GatewayContext, registry: GuardrailRegistry, ids: string[], bodyLimit: number): Promise<void> {
  if (ctx.endpoint.body === 'json') await ensureJsonBody(ctx, bodyLimit);
  const model = modelOf(ctx);
  // Input guardrails run once per request (and again only for a target that changes the model).
  let done = ctx.get(INPUT_DONE);
  if (!done) ctx.set(INPUT_DONE, (done = new Set<string>()));
  const key = `${ids.join(',')}|${model ?? ''}`;
  if (done.has(key)) return;
  const view = new TextView(ctx.endpoint.body === 'json' ? inputPieces(ctx.endpoint.operation, ctx.get(BODY)) : []);
  const outcome = await registry.apply(ids, view, { phase: 'input', model, requestId: ctx.id, signal: ctx.signal });
  if (view.changed) ctx.set(BODY_CHANGED, true);
  noteVerdict(ctx, outcome);
  done.add(key);
}

async function checkOutput(ctx: GatewayContext, registry: GuardrailRegistry, ids: string[]): Promise<void> {
  const response = modelAnswer(ctx);
  if (!response || response.kind === 'direct' || response.status < 200 || response.status >= 300) return;
  const run = { phase: 'output' as const, model: modelOf(ctx), requestId: ctx.id, signal: ctx.signal };
  if (response.kind === 'json') {
    // An answer that is not JSON is the upstream's bad answer (502), never passed on unchecked.
    const body = answerJson(ctx, response);
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
      const provider = ctx.get(TARGET)?.provider;
      throw new GatewayError('provider_error', `The ${provider ?? 'upstream'} stream ended before the answer was complete.`, {
        provider,
        retryable: true,
      });
    }
    const view = new TextView(assembled.pieces);
    const outcome = await registry.apply(ids, view, run);
    response.parts = replay(assembled.parts());
    noteVerdict(ctx, outcome);
  }
}

/** Whether a guardrail stage config is the MCP kind (tool arguments and results). */
function forTools(config: GuardrailStageConfig): boolean {
  return config.toolArguments !== undefined || config.toolResults !== undefined || config.tools !== undefined;
}

/**
 * Guardrails of guardrails.<id>: the stage's own `input` / `output` lists plus the current
 * target's input_guardrails / output_guardrails (routing config). Input guardrails check the
 * request's text before anything is sent upstream (deny: 422; redact: the body sent upstream
 * is masked). Output guardrails check the answer; a streamed answer is read to its end first,
 * checked, then replayed (so a denied stream is a plain 422 and never a half-sent answer).
 * Runs once per target attempt, after fallback.
 *
 * In the MCP pipeline the stage takes `toolArguments`, `toolResults` (and `tools`) instead, and
 * checks tools/call arguments and tool results (features/mcp/policy/tool-guardrails.ts).
 */
export default defineStage<GuardrailStageConfig, GatewayContext>({
  name: 'guardrail',
  description: 'Runs input and output guardrails (deny, flag, redact).',
  schema: schemaDocument('stages/guardrail.schema.json'),
  requires: (config) => (forTools(config ?? {}) ? [GATEWAY_CALLER] : [TARGET]),
  reads: [BODY, MCP_MESSAGE, RESPONSE, INPUT_DONE],
  writes: [BODY, BODY_CHANGED, INPUT_DONE, MCP_ANSWER_STEPS],
  create(config, services) {
    let registry: GuardrailRegistry;
    try {
      registry = guardrailRegistry(services);
    } catch (err) {
      if (err instanceof GuardrailConfigError) throw new PipelineError(err.problems);
      throw err;
    }
    const bodyLimit = services.config.server?.bodyLimit ?? 10 * 1024 * 1024;
    if (forTools(config)) {
      if (config.input !== undefined || config.output !== undefined) {
        throw new Error('give either input/output (provider routes) or toolArguments/toolResults (MCP), not both');
      }
      const unknown = [...registry.unknown(config.toolArguments, 'toolArguments'), ...registry.unknown(config.toolResults, 'toolResults')];
      if (unknown.length) throw new Error(unknown.join('; '));
      const toolArguments = config.toolArguments ?? [];
      const toolResults = config.toolResults ?? [];
      // Nothing configured: the stage is left out (mcp.yaml ships it empty, for `configure`).
      if (!toolArguments.length && !toolResults.length) return null;
      const settings = { toolArguments, toolResults, tools: config.tools, bodyLimit };
      // the gateway's own tool calls (the tool loop) go through the same guardrails
      const guard = toolGuard(registry, settings);
      services.provide(TOOL_GUARD, guard);
      return toolGuardrails(registry, settings, services.logger, guard);
    }
    const unknown = [...registry.unknown(config.input, 'input'), ...registry.unknown(config.output, 'output')];
    if (unknown.length) throw new Error(unknown.join('; '));
    const guarded = async (ctx: GatewayContext, next: () => Promise<void>, input: string[], output: string[]): Promise<void> => {
      if (input.length) await checkInput(ctx, registry, input, bodyLimit);
      await next();
      if (output.length) await checkOutput(ctx, registry, output);
    };
    // Without guardrails for this attempt, next() is the stage's own answer (no promise of its own).
    return (ctx, next) => {
      const target = ctx.get(TARGET);
      const input = union(config.input, target?.inputGuardrails);
      const output = union(config.output, target?.outputGuardrails);
      return input.length || output.length ? guarded(ctx, next, input, output) : next();
    };
  },
});
