import type { EncodedStream, StreamAnswer } from '../../../kernel/engine/context.js';
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

/**
 * Notes what a streamed answer hands to the caller, for billing a stream cut before its usage:
 * the passthrough's bytes by reference (no copy; decoded only if the stream was cut), the
 * parts' text otherwise. `text()` gives the generated text so far. The stream is otherwise
 * unchanged: `encoded()` and `batches()` keep their shapes.
 */
export function noteStreamText(answer: StreamAnswer<StreamPart>): StreamNotes {
  const source = answer.parts as AsyncIterable<StreamPart> & Partial<EncodedStream> & { batches?: () => AsyncIterable<StreamPart[]> };
  const chunks: Buffer[] = [];
  let bytes = 0;
  let text = '';
  let started: Record<string, unknown> | undefined;
  let final: Record<string, unknown> | undefined;
  // Anthropic: message_start's usage, completed by message_delta's; Responses: response.completed's.
  const noteUsage = (data: string) => {
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
    if (type === 'message_start' && messageUsage) started = messageUsage as JsonObject;
    else if (type === 'message_delta' && event.usage) final = { ...started, ...(event.usage as JsonObject) };
    else if (typeof type === 'string' && type.startsWith('response.') && responseUsage) final = responseUsage as JsonObject;
  };
  const keep = (part: StreamPart) => {
    if (part.type === 'event' && part.data.includes('"usage"')) noteUsage(part.data);
    if (text.length < MAX_KEPT) text += textOfPart(part);
  };
  const wrapped: AsyncIterable<StreamPart> & Partial<EncodedStream> & { batches?: () => AsyncIterable<StreamPart[]> } = {
    async *[Symbol.asyncIterator]() {
      for await (const part of source) {
        keep(part);
        yield part;
      }
    },
  };
  if (typeof source.encoded === 'function') {
    const encoded = source.encoded.bind(source);
    // An iterator over the source's (no generator: the chunks pass with one promise each).
    const note = (step: IteratorResult<Buffer>): IteratorResult<Buffer> => {
      if (!step.done && bytes < MAX_KEPT) {
        chunks.push(step.value);
        bytes += step.value.length;
      }
      return step;
    };
    wrapped.encoded = () => {
      const inner = encoded()[Symbol.asyncIterator]();
      const iterator: AsyncIterator<Buffer> = {
        next: () => inner.next().then(note),
        return: (value?: unknown) => inner.return?.(value) ?? Promise.resolve({ value: undefined, done: true }),
      };
      return { [Symbol.asyncIterator]: () => iterator };
    };
    Object.defineProperty(wrapped, 'ended', { get: () => source.ended });
  }
  if (typeof source.batches === 'function') {
    const batches = source.batches.bind(source);
    wrapped.batches = () => ({
      async *[Symbol.asyncIterator]() {
        for await (const batch of batches()) {
          for (const part of batch) keep(part);
          yield batch;
        }
      },
    });
  }
  answer.parts = wrapped;
  return { text: () => text + (chunks.length ? textOfEvents(Buffer.concat(chunks).toString('utf8')) : ''), usage: () => final };
}
