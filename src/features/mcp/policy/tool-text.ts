import type { TextPiece } from '../../guardrails/index.js';

type Json = Record<string, unknown>;

const MAX_DEPTH = 64;

/** Every string inside `value` (object values and array items, to a sane depth) as a piece that writes back in place. */
function stringLeaves(value: unknown, pieces: TextPiece[], depth = 0): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  const holder = value as Json | unknown[];
  for (const key of Object.keys(holder)) {
    const item = (holder as Json)[key];
    if (typeof item === 'string') {
      pieces.push({
        text: item,
        group: pieces.length,
        write(text) {
          (holder as Json)[key] = text;
        },
      });
    } else stringLeaves(item, pieces, depth + 1);
  }
}

/** The text a guardrail checks in a tools/call request: every string in `params.arguments`. */
export function argumentPieces(params: Json | undefined): TextPiece[] {
  const pieces: TextPiece[] = [];
  stringLeaves(params?.arguments, pieces);
  return pieces;
}

/**
 * The text a guardrail checks in a tool result: text content, the text of embedded resources,
 * and every string of `structuredContent` (the same data in structured form).
 */
export function resultPieces(result: Json): TextPiece[] {
  const pieces: TextPiece[] = [];
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  for (const item of content) {
    if (!item || typeof item !== 'object') continue;
    if (item.type === 'text' && typeof item.text === 'string') {
      pieces.push({
        text: item.text,
        group: pieces.length,
        write(text) {
          item.text = text;
        },
      });
    } else if (item.type === 'resource' && item.resource && typeof item.resource === 'object') {
      const resource = item.resource as Json;
      if (typeof resource.text === 'string') {
        pieces.push({
          text: resource.text,
          group: pieces.length,
          write(text) {
            resource.text = text;
          },
        });
      }
    }
  }
  if (result.structuredContent && typeof result.structuredContent === 'object') stringLeaves(result.structuredContent, pieces);
  return pieces;
}
