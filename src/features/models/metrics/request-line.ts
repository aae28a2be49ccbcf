import type { GatewayContext } from '../../../kernel/engine/context.js';
import { redactRepeatedLogTextOf } from '../../../kernel/errors/redact.js';
import { ATTEMPTS } from '../model-request.js';
import type { AnswerFacts } from './usage-scan.js';

/** Longest model name written to a log line (a caller may send megabytes). */
const MAX_MODEL = 200;

function modelText(model: string, secrets: readonly (string | undefined)[]): string {
  // Model names repeat from request to request: masked once (unless a request secret may be in one).
  return redactRepeatedLogTextOf(JSON.stringify(model.length > MAX_MODEL ? `${model.slice(0, MAX_MODEL)}…` : model), secrets);
}

/** What the line shows of one attempt (routing/attempts.ts AttemptRecord). */
interface Attempt {
  provider: string;
  targetIndex?: string;
  status?: number;
  code?: string;
  skipped?: string;
  durationMs: number;
}

function attemptText(a: Attempt): string {
  let text = '{';
  if (a.targetIndex !== undefined) text += `"target":${JSON.stringify(a.targetIndex)},`;
  text += `"provider":${JSON.stringify(a.provider)}`;
  if (a.status !== undefined) text += `,"status":${a.status}`;
  const reason = a.skipped ?? a.code;
  if (reason !== undefined) text += `,"reason":${JSON.stringify(reason)}`;
  return `${text},"ms":${a.durationMs}}`;
}

/**
 * The members a model request adds to its log line: `model` (`requested`, override_params
 * applied, and `answered`), `tokens` (`input`, `output`) and `attempts` (each target tried or
 * skipped: index path, provider, status, reason, ms).
 */
export function modelLineFields(ctx: GatewayContext, requested: string | undefined, facts: AnswerFacts | undefined): string {
  let text = '';
  if (requested !== undefined || facts?.model !== undefined) {
    const parts: string[] = [];
    if (requested !== undefined) parts.push(`"requested":${modelText(requested, ctx.secrets)}`);
    if (facts?.model !== undefined) parts.push(`"answered":${modelText(facts.model, ctx.secrets)}`);
    text += `,"model":{${parts.join(',')}}`;
  }
  if (facts) text += `,"tokens":{"input":${facts.input},"output":${facts.output}}`;
  const attempts = ctx.get(ATTEMPTS);
  if (attempts?.length) text += `,"attempts":[${attempts.map(attemptText).join(',')}]`;
  return text;
}
