import { defineSlot } from '../../../kernel/engine/slot.js';

type Json = Record<string, unknown>;

/**
 * A step of the dispatch that sees the answers (parsed JSON-RPC responses, result or error) to
 * the requests of one HTTP request before the transport writes them, whatever the transport:
 * the gateway's own sessions and stateless requests (the dispatcher's result), the stateless
 * revision, and the relays (each answer message they parse from the tool server). A stage of
 * the MCP pipeline adds its step for the request (MCP_ANSWER_STEPS); the MCP transport applies
 * the steps.
 */
export interface AnswerStep {
  /** Whether the step wants this answer: cheap and synchronous (an answer no step wants passes as its original bytes). */
  wants(answer: Json): boolean;
  /** The answer to write instead (a result, or an error), or undefined to leave it as it is. */
  rewrite(answer: Json): Promise<Json | undefined>;
}

export type AnswerSteps = readonly AnswerStep[];

/** The answer steps of this request, as the stages before the transport added them. */
export const MCP_ANSWER_STEPS = defineSlot<AnswerStep[]>('mcp-answer-steps', 'the MCP answer steps');

/** Whether `message` is an answer (a response to a request: an id, a result or an error, no method). */
export function isAnswer(message: Json): boolean {
  return message.method === undefined && (typeof message.id === 'string' || typeof message.id === 'number') && ('result' in message || 'error' in message);
}

/** Whether any step wants `message` (which must be an answer for any to want it). */
export function wantsAnswer(steps: AnswerSteps | undefined, message: Json): boolean {
  if (!steps?.length || !isAnswer(message)) return false;
  for (const step of steps) if (step.wants(message)) return true;
  return false;
}

/**
 * The answer once every step that wants it has seen it, in order (each sees what the one before
 * left); undefined when none changed it (its bytes then pass untouched).
 */
export async function runAnswerSteps(steps: AnswerSteps | undefined, message: Json): Promise<Json | undefined> {
  if (!steps?.length || !isAnswer(message)) return undefined;
  let current = message;
  let changed = false;
  for (const step of steps) {
    if (!step.wants(current)) continue;
    const next = await step.rewrite(current);
    if (next && next !== current) {
      current = next;
      changed = true;
      // A step may turn a result into an error: later steps see it as it now is.
      if (!isAnswer(current)) break;
    }
  }
  return changed ? current : undefined;
}

/**
 * A whole JSON answer body (one message or a batch) with the answers the steps want rewritten;
 * undefined when nothing changed (or it is not JSON): the body then passes as it came.
 */
export async function runAnswerStepsOnBody(steps: AnswerSteps | undefined, body: Buffer): Promise<Buffer | undefined> {
  if (!steps?.length || !body.length) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  let changed = false;
  const out: unknown[] = [];
  for (const m of list) {
    const message = m && typeof m === 'object' && !Array.isArray(m) ? (m as Json) : undefined;
    const next = message && wantsAnswer(steps, message) ? await runAnswerSteps(steps, message) : undefined;
    if (next) changed = true;
    out.push(next ?? m);
  }
  if (!changed) return undefined;
  return Buffer.from(JSON.stringify(Array.isArray(parsed) ? out : out[0]), 'utf8');
}
