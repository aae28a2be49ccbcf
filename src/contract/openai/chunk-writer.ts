import type { StreamPart, Usage } from '../stream-parts.js';

/** Whether a chunk's JSON text is a usage-only chunk (no choices). */
export function isUsageOnly(data: string): boolean {
  return /"choices"\s*:\s*\[\s*\]/.test(data);
}

/**
 * Turns stream parts into OpenAI SSE text (`data: <chunk>\n\n`), one of the writers of the HTTP edge.
 * Reasoning goes in `delta.reasoning_content` (text pieces) and `delta.thinking_blocks` (each
 * block whole, with its signature, once it is complete).
 * Keeps OpenAI's rules: the role comes in each choice's first delta; a tool call's first delta
 * carries id, type and name, later ones only its index and argument text; usage, when asked
 * for, comes in a last chunk with no choices.
 */
export class OpenAIChunkWriter {
  private id = '';
  private model = '';
  private created = 0;
  private readonly roleSent = new Set<number>();
  private usage: Usage | undefined;
  /** The usage a passed-through chunk carried (already written with it; never written again). */
  private passedUsage: Usage | undefined;
  private readonly object: string;
  /** The text of a chat chunk up to its first choice's index (made once per meta). */
  private head: string | undefined;
  /** The same up to the delta of choice 0. */
  private firstHead: string | undefined;

  constructor(
    private readonly format: 'chat' | 'text',
    private readonly includeUsage: boolean,
    /** The gateway asked for usage the caller did not: the usage is noted, the usage-only chunk left out. */
    private readonly hiddenUsage = false,
  ) {
    this.object = format === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  }

  /** The usage of a passed-through chunk (the last one, when the caller asked for usage). */
  private noteUsage(data: string): void {
    try {
      const usage = JSON.parse(data).usage;
      if (usage && typeof usage === 'object') this.passedUsage = usage;
    } catch {
      // not JSON: the chunk still passes through unchanged
    }
  }

  /** Usage seen so far (from translated parts, or the usage chunk a passthrough stream ends with). */
  get lastUsage(): Usage | undefined {
    return this.usage ?? this.passedUsage;
  }

  write(part: StreamPart): string {
    switch (part.type) {
      case 'chunk':
        if ((this.includeUsage || this.hiddenUsage) && (part.data.includes('"usage":{') || part.data.includes('"usage": {'))) {
          this.noteUsage(part.data);
          if (this.hiddenUsage && isUsageOnly(part.data)) return '';
        }
        return `data: ${part.data}\n\n`;
      case 'event':
        return part.event ? `event: ${part.event}\ndata: ${part.data}\n\n` : `data: ${part.data}\n\n`;
      case 'meta':
        this.id = part.id;
        this.model = part.model;
        this.created = part.created;
        this.head = undefined;
        return '';
      case 'text':
        // The common chunk, written without building it: the same text JSON.stringify gives.
        if (this.format === 'text') return this.emit([{ text: part.text, index: part.choice, logprobs: null, finish_reason: null }]);
        return this.choiceChunk(part.choice, `{${this.roleField(part.choice)}"content":${JSON.stringify(part.text)}}`, 'null');
      case 'reasoning':
        if (this.format === 'text') return '';
        return this.emit([{ index: part.choice, delta: this.withRole(part.choice, { reasoning_content: part.text }), logprobs: null, finish_reason: null }]);
      case 'thinking-block':
        if (this.format === 'text') return '';
        return this.emit([{ index: part.choice, delta: this.withRole(part.choice, { thinking_blocks: [part.block] }), logprobs: null, finish_reason: null }]);
      case 'tool-call-start':
        return this.emit([
          {
            index: part.choice,
            delta: this.withRole(part.choice, {
              content: null,
              tool_calls: [toolCallDelta(part)],
            }),
            logprobs: null,
            finish_reason: null,
          },
        ]);
      case 'tool-call-args':
        return this.emit([{ index: part.choice, delta: { tool_calls: [{ index: part.index, function: { arguments: part.args } }] }, logprobs: null, finish_reason: null }]);
      case 'finish':
        if (this.format === 'text') return this.emit([{ text: '', index: part.choice, logprobs: null, finish_reason: part.reason }]);
        return this.choiceChunk(part.choice, this.roleSent.has(part.choice) ? '{}' : `{${this.roleField(part.choice).slice(0, -1)}}`, JSON.stringify(part.reason));
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'done':
        return this.done();
    }
  }

  /** The event that ends a failed stream: the whole error body, and no [DONE] after it. */
  failure(body: unknown): string {
    return sseErrorEvent(body);
  }

  private done(): string {
    let out = '';
    if (this.includeUsage && this.usage) out += this.emit([], this.usage);
    return `${out}data: [DONE]\n\n`;
  }

  /**
   * A chat chunk of one choice, written without building it (the text JSON.stringify gives for
   * emit's object): `delta` and `finish` are JSON texts.
   */
  private choiceChunk(choice: number, delta: string, finish: string): string {
    if (this.head === undefined) {
      const fields = JSON.stringify({ id: this.id, object: this.object, created: this.created, model: this.model });
      this.head = `data: ${fields.slice(0, -1)},"choices":[{"index":`;
      this.firstHead = `${this.head}0,"delta":`;
    }
    const head = choice === 0 ? this.firstHead! : `${this.head}${choice},"delta":`;
    return `${head}${delta},"logprobs":null,"finish_reason":${finish}}],"system_fingerprint":null}\n\n`;
  }

  /** `"role":"assistant",` in the choice's first delta (noted as sent), else nothing. */
  private roleField(choice: number): string {
    if (this.roleSent.has(choice)) return '';
    this.roleSent.add(choice);
    return '"role":"assistant",';
  }

  private withRole(choice: number, delta: Record<string, unknown>): Record<string, unknown> {
    if (this.roleSent.has(choice)) return delta;
    this.roleSent.add(choice);
    return { role: 'assistant', ...delta };
  }

  private emit(choices: unknown[], usage?: Usage): string {
    const chunk: Record<string, unknown> = { id: this.id, object: this.object, created: this.created, model: this.model, choices };
    if (this.format === 'chat') chunk.system_fingerprint = null;
    if (usage) chunk.usage = usage;
    return `data: ${JSON.stringify(chunk)}\n\n`;
  }
}

/** The first delta of a tool call; a reasoning signature riding on it goes where Google's OpenAI-compatible API puts it. */
function toolCallDelta(part: Extract<StreamPart, { type: 'tool-call-start' }>): Record<string, unknown> {
  const call: Record<string, unknown> = { index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } };
  if (part.signature) call.extra_content = { google: { thought_signature: part.signature } };
  return call;
}

/** The event that ends a failed stream: the whole error body, and no [DONE] after it. */
export function sseErrorEvent(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}
