import type { StreamPart } from '../../contract/stream-parts.js';
import type { StreamFormat } from '../../contract/stream-format.js';
import type { TextPiece } from './text-view.js';

/** A stream read to its end for output guardrails, with its text as pieces that can be masked. */
export interface AssembledStream {
  pieces: TextPiece[];
  /** Whether the upstream said the answer is complete (a `done` part arrived). */
  complete: boolean;
  /** The parts to replay, masked text included (call after redaction). */
  parts(): StreamPart[];
}

/**
 * Reads a whole stream of parts (output guardrails need the whole answer before anything is
 * sent). Text deltas of OpenAI-shaped chunks and translated text parts become pieces grouped
 * by choice; masking a piece rewrites the chunk it came from.
 */
export async function assembleStream(source: AsyncIterable<StreamPart>, streamFormat: StreamFormat): Promise<AssembledStream> {
  const format = streamFormat === 'text' ? 'text' : 'chat';
  const entries: Array<{ part: StreamPart; parsed?: unknown; dirty: boolean }> = [];
  const pieces: TextPiece[] = [];
  let complete = false;
  let copies = 1000;
  for await (const part of source) {
    const entry: { part: StreamPart; parsed?: unknown; dirty: boolean } = { part: { ...part } as StreamPart, dirty: false };
    entries.push(entry);
    if (part.type === 'text') {
      pieces.push({ text: part.text, group: part.choice, write: (text) => ((entry.part as { text: string }).text = text) });
    } else if (part.type === 'chunk') {
      let parsed: { choices?: unknown } | null | undefined;
      try {
        parsed = JSON.parse(part.data) as typeof parsed;
      } catch {
        continue;
      }
      if (!Array.isArray(parsed?.choices)) continue;
      entry.parsed = parsed;
      parsed.choices.forEach((choice: Holder | null | undefined, i: number) => {
        const group = typeof choice?.index === 'number' ? choice.index : i;
        const holder = (format === 'chat' ? choice?.delta : choice) as Holder | null | undefined;
        const key = format === 'chat' ? 'content' : 'text';
        const value = holder?.[key];
        if (holder && typeof value === 'string' && value !== '') {
          pieces.push({
            text: value,
            group,
            write: (text) => {
              holder[key] = text;
              entry.dirty = true;
            },
          });
        }
      });
    } else if (part.type === 'event') {
      // an upstream event in the answer's own format (Anthropic Messages, Responses)
      let parsed: unknown;
      try {
        parsed = JSON.parse(part.data);
      } catch {
        continue;
      }
      entry.parsed = parsed;
      for (const [holder, key, whole] of eventTexts(parsed)) {
        pieces.push({
          text: holder[key] as string,
          // deltas join into the answer's text; events that repeat the whole text are checked apart
          group: whole ? ++copies : 0,
          write: (text) => {
            holder[key] = text;
            entry.dirty = true;
          },
        });
      }
    }
    if (part.type === 'done') {
      complete = true;
      break;
    }
  }
  return {
    pieces,
    complete,
    parts: () =>
      entries.map((e) => {
        if (!e.dirty) return e.part;
        return e.part.type === 'event' ? { ...e.part, data: JSON.stringify(e.parsed) } : { type: 'chunk', data: JSON.stringify(e.parsed) };
      }),
  };
}

export async function* replay(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* parts;
}

/** An object of a parsed chunk or event, its text written back in place when masked. */
type Holder = Record<string, unknown>;

/** The fields of an Anthropic or Responses event read for its text (any JSON value reads as no text). */
interface TextEvent {
  type?: unknown;
  delta?: Holder | null;
  content_block?: Holder | null;
  part?: Holder | null;
  item?: unknown;
  response?: { output?: unknown } | null;
}

/** The answer text an Anthropic or Responses event holds: [object, key, whether it repeats the whole text] (the key's value is a string). */
function eventTexts(parsed: unknown): Array<[Holder, string, boolean]> {
  const data = parsed as TextEvent | null | undefined;
  const out: Array<[Holder, string, boolean]> = [];
  const text = (value: unknown, key: string, whole: boolean) => {
    const holder = value as Holder | null | undefined;
    if (holder && typeof holder[key] === 'string' && holder[key] !== '') out.push([holder, key, whole]);
  };
  const messageItems = (items: unknown) => {
    if (!Array.isArray(items)) return;
    for (const item of items as Array<Holder | null | undefined>) {
      if (item?.type === 'message' && Array.isArray(item.content))
        for (const c of item.content as Array<Holder | null | undefined>) if (c?.type === 'output_text') text(c, 'text', true);
    }
  };
  switch (data?.type) {
    case 'content_block_delta':
      if (data.delta?.type === 'text_delta') text(data.delta, 'text', false);
      break;
    case 'content_block_start':
      if (data.content_block?.type === 'text') text(data.content_block, 'text', false);
      break;
    case 'response.output_text.delta':
      text(data, 'delta', false);
      break;
    case 'response.output_text.done':
      text(data, 'text', true);
      break;
    case 'response.content_part.done':
      if (data.part?.type === 'output_text') text(data.part, 'text', true);
      break;
    case 'response.output_item.done':
      messageItems([data.item]);
      break;
    case 'response.completed':
    case 'response.incomplete':
      messageItems(data.response?.output);
      break;
  }
  return out;
}
