/**
 * Gemini's reasoning: thought parts (`thought: true`, summaries of the model's thinking) and
 * thought signatures (`thoughtSignature`, on a thought part, a text part or a function call).
 * Read the same way for whole answers and streams (a stream's parts arrive over several
 * chunks): consecutive thought parts make one thinking block, closed by a signature on a
 * thought part, by the next part that is not a thought, or by the candidate's end; a
 * signature on a text part becomes a thinking block with no text; a signature on a function
 * call rides on that tool call. Sent back, each goes on the same kind of part it came on.
 */
import type { ThinkingBlock } from '../../../../contract/stream-parts.js';
import { isJsonObject, objectOf } from '../../../../contract/json.js';

type Json = Record<string, unknown>;

/** What one Gemini part says, in order. */
export type PartEvent =
  | { kind: 'reasoning'; text: string }
  | { kind: 'block'; block: ThinkingBlock }
  | { kind: 'text'; text: string }
  | { kind: 'call'; name: string; args: string; id?: string; signature?: string };

/** The open thinking block of one candidate (kept across the chunks of a stream). */
export class ThoughtState {
  private text = '';
  private open = false;

  /** The events of one part. */
  read(part: Json, out: PartEvent[]): void {
    if (!part || typeof part !== 'object') return;
    const signature = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? part.thoughtSignature : undefined;
    if (part.thought === true) {
      const text = typeof part.text === 'string' ? part.text : '';
      if (text !== '') out.push({ kind: 'reasoning', text });
      this.text += text;
      this.open = true;
      if (signature) this.close(out, signature);
      return;
    }
    if (typeof part.text === 'string') {
      this.close(out);
      if (part.text !== '') out.push({ kind: 'text', text: part.text });
      if (signature) out.push({ kind: 'block', block: { type: 'thinking', thinking: '', signature } });
      return;
    }
    const fn = isJsonObject(part.functionCall) ? part.functionCall : undefined;
    if (fn && typeof fn.name === 'string') {
      this.close(out);
      const call: PartEvent = { kind: 'call', name: fn.name, args: JSON.stringify(fn.args ?? {}) };
      if (typeof fn.id === 'string' && fn.id !== '') call.id = fn.id;
      if (signature) call.signature = signature;
      out.push(call);
    }
  }

  /** Closes the open block (the candidate ended, or another kind of part came). */
  close(out: PartEvent[], signature?: string): void {
    if (!this.open) return;
    const block: ThinkingBlock = signature ? { type: 'thinking', thinking: this.text, signature } : { type: 'thinking', thinking: this.text };
    this.text = '';
    this.open = false;
    out.push({ kind: 'block', block });
  }
}

/** Every event of a whole candidate. */
export function candidateEvents(candidate: Json | undefined): PartEvent[] {
  const out: PartEvent[] = [];
  const state = new ThoughtState();
  const parts = objectOf(candidate?.content).parts;
  if (Array.isArray(parts)) for (const part of parts) state.read(objectOf(part), out);
  state.close(out);
  return out;
}

/**
 * The model turn's parts for an assistant message sent back: thought parts (with their
 * signatures) first, then the text, then the function calls. A text-part signature (a
 * thinking block with no text) goes back on the last text part.
 */
/** A text or thought part of a model turn. */
export interface TurnPart {
  text: string;
  thought?: boolean;
  thoughtSignature?: string;
}

export function modelTurnParts<Call extends { thoughtSignature?: string }>(blocks: ThinkingBlock[], texts: string[], calls: Call[]): Array<TurnPart | Call> {
  const parts: TurnPart[] = [];
  let textSignature: string | undefined;
  const onCalls = new Set(calls.map((c) => c.thoughtSignature).filter((s) => typeof s === 'string'));
  for (const block of blocks) {
    if (block.type !== 'thinking') continue; // Gemini has no redacted thinking
    if (block.thinking === '') {
      // the same signature riding on a call goes back on that call only
      if (block.signature && !onCalls.has(block.signature)) textSignature = block.signature;
      continue;
    }
    parts.push(block.signature ? { text: block.thinking, thought: true, thoughtSignature: block.signature } : { text: block.thinking, thought: true });
  }
  const textParts: TurnPart[] = texts.filter((t) => t !== '').map((text) => ({ text }));
  if (textSignature) {
    if (textParts.length > 0) textParts[textParts.length - 1]!.thoughtSignature = textSignature;
    else if (calls.length === 0) textParts.push({ text: '', thoughtSignature: textSignature });
  }
  return [...parts, ...textParts, ...calls];
}
