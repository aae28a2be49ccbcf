import type { StreamPart } from '../protocol/stream-parts.js';
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
export async function assembleStream(source: AsyncIterable<StreamPart>, format: 'chat' | 'text'): Promise<AssembledStream> {
  const entries: Array<{ part: StreamPart; parsed?: any; dirty: boolean }> = [];
  const pieces: TextPiece[] = [];
  let complete = false;
  for await (const part of source) {
    const entry: { part: StreamPart; parsed?: any; dirty: boolean } = { part: { ...part } as StreamPart, dirty: false };
    entries.push(entry);
    if (part.type === 'text') {
      pieces.push({ text: part.text, group: part.choice, write: (text) => ((entry.part as { text: string }).text = text) });
    } else if (part.type === 'chunk') {
      let parsed: any;
      try {
        parsed = JSON.parse(part.data);
      } catch {
        continue;
      }
      if (!Array.isArray(parsed?.choices)) continue;
      entry.parsed = parsed;
      parsed.choices.forEach((choice: any, i: number) => {
        const group = typeof choice?.index === 'number' ? choice.index : i;
        const holder = format === 'chat' ? choice?.delta : choice;
        const key = format === 'chat' ? 'content' : 'text';
        if (holder && typeof holder[key] === 'string' && holder[key] !== '') {
          pieces.push({
            text: holder[key],
            group,
            write: (text) => {
              holder[key] = text;
              entry.dirty = true;
            },
          });
        }
      });
    }
    if (part.type === 'done') {
      complete = true;
      break;
    }
  }
  return {
    pieces,
    complete,
    parts: () => entries.map((e) => (e.dirty ? { type: 'chunk', data: JSON.stringify(e.parsed) } : e.part)),
  };
}

export async function* replay(parts: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* parts;
}
