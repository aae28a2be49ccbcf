import type { EncodedSink, EncodedStream, StreamAnswer } from '../../../kernel/engine/context.js';
import { pullInto } from '../../../kernel/engine/pull-into.js';
import type { StreamPart } from '../../../contract/stream-parts.js';
import { objectOf, type JsonObject } from '../../../contract/json.js';

/** Most characters of generated text kept for an estimate (a cut stream past it is billed for this much). */
const MAX_KEPT = 4 * 1024 * 1024;

/** The generated text of OpenAI chunks / Anthropic and Responses events: every `content`/`text`/`delta` string. */
const TEXT_FIELDS = /"(?:content|text|delta|arguments|reasoning_content|thinking|partial_json)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

function textOfEvents(sse: string): string {
  let out = '';
  for (const m of sse.matchAll(TEXT_FIELDS)) {
    try {
      out += JSON.parse(`"${m[1]}"`) as string;
    } catch {
      out += m[1];
    }
  }
  return out;
}

function textOfPart(part: StreamPart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool-call-args':
      return part.args;
    case 'tool-call-start':
      return part.name;
    case 'chunk':
    case 'event':
      return textOfEvents(part.data);
    default:
      return '';
  }
}

/** What a stream told so far: the generated text, and the usage of an answer in a format whose events pass through as they came. */
export interface StreamNotes {
  text(): string;
  /** The final usage block of an Anthropic Messages or Responses stream (undefined until its last usage event). */
  usage(): Record<string, unknown> | undefined;
}

/** A stream's source as the notes read it: parts, and maybe batches of them, its text ready-made, or pushed. */
type NotedSource = AsyncIterable<StreamPart> & Partial<EncodedStream> & { batches?: () => AsyncIterable<StreamPart[]> };

/**
 * Notes what a streamed answer hands to the caller, for billing a stream cut before its usage:
 * the passthrough's bytes by reference (no copy; decoded only if the stream was cut), the
 * parts' text otherwise. `text()` gives the generated text so far. The stream is otherwise
 * unchanged: `encoded()`, `pushTo()` and `batches()` keep their shapes.
 */
export function noteStreamText(answer: StreamAnswer<StreamPart>): StreamNotes {
  const source = answer.parts as NotedSource;
  const notes = new TextNotes();
  const wrapped: NotedSource =
    typeof source.encoded === 'function' ? new NotedEncodedStream(source as NotedSource & EncodedStream, notes) : { [Symbol.asyncIterator]: () => notes.parts(source) };
  if (typeof source.batches === 'function') {
    const batches = source.batches.bind(source);
    wrapped.batches = () => ({ [Symbol.asyncIterator]: () => notes.batches(batches()) });
  }
  answer.parts = wrapped;
  return notes;
}

/** The notes themselves: the bytes passed by reference, the parts' text, the usage of events that pass as they came. */
class TextNotes implements StreamNotes {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private kept = '';
  private started: Record<string, unknown> | undefined;
  private final: Record<string, unknown> | undefined;

  text(): string {
    return this.kept + (this.chunks.length ? textOfEvents(Buffer.concat(this.chunks).toString('utf8')) : '');
  }

  usage(): Record<string, unknown> | undefined {
    return this.final;
  }

  chunk(chunk: Buffer): void {
    if (this.bytes >= MAX_KEPT) return;
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  part(part: StreamPart): void {
    if (part.type === 'event' && part.data.includes('"usage"')) this.noteUsage(part.data);
    if (this.kept.length < MAX_KEPT) this.kept += textOfPart(part);
  }

  async *parts(source: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart> {
    for await (const part of source) {
      this.part(part);
      yield part;
    }
  }

  async *batches(source: AsyncIterable<StreamPart[]>): AsyncGenerator<StreamPart[]> {
    for await (const batch of source) {
      for (const part of batch) this.part(part);
      yield batch;
    }
  }

  /** Anthropic: message_start's usage, completed by message_delta's; Responses: response.completed's. */
  private noteUsage(data: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    // A field that is not an object reads as absent; a usage block is kept as the upstream sent it.
    const event = objectOf(parsed);
    const type = event.type;
    const messageUsage = objectOf(event.message).usage;
    const responseUsage = objectOf(event.response).usage;
    if (type === 'message_start' && messageUsage) this.started = messageUsage as JsonObject;
    else if (type === 'message_delta' && event.usage) this.final = { ...this.started, ...(event.usage as JsonObject) };
    else if (typeof type === 'string' && type.startsWith('response.') && responseUsage) this.final = responseUsage as JsonObject;
  }
}

/**
 * A stream whose text is ready-made, its chunks noted as they pass (a class, not an object
 * literal with a getter: that would get a hidden class of its own per stream).
 */
class NotedEncodedStream implements AsyncIterable<StreamPart>, EncodedStream {
  batches?: () => AsyncIterable<StreamPart[]>;

  constructor(
    private readonly source: NotedSource & EncodedStream,
    private readonly notes: TextNotes,
  ) {}

  get ended(): boolean {
    return this.source.ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return this.notes.parts(this.source);
  }

  /** The source's iterator, each chunk noted (no generator: the chunks pass with one promise each). */
  encoded(): AsyncIterable<Buffer> {
    const inner = this.source.encoded()[Symbol.asyncIterator]();
    const notes = this.notes;
    const note = (step: IteratorResult<Buffer>): IteratorResult<Buffer> => {
      if (!step.done) notes.chunk(step.value);
      return step;
    };
    const iterator: AsyncIterator<Buffer> = {
      next: () => inner.next().then(note),
      return: (value?: unknown) => inner.return?.(value) ?? Promise.resolve({ value: undefined, done: true }),
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  pushTo(sink: EncodedSink): Promise<void> {
    const source = this.source;
    if (typeof source.pushTo !== 'function') return pullInto(this.encoded(), () => source.ended, sink);
    return source.pushTo(new NotingSink(sink, this.notes));
  }
}

/** A sink that notes each chunk on its way to the caller's. */
class NotingSink implements EncodedSink {
  constructor(
    private readonly sink: EncodedSink,
    private readonly notes: TextNotes,
  ) {}

  write(chunk: Buffer, last: boolean): boolean {
    this.notes.chunk(chunk);
    return this.sink.write(chunk, last);
  }

  onDrain(resume: () => void): void {
    this.sink.onDrain(resume);
  }

  closed(): boolean {
    return this.sink.closed();
  }
}
