import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import { cacheControlOf, contentPieces, parseToolArguments, roleRefusal, type ContentPiece } from '../shared/chat-content.js';
import { thinkingBlocksOf } from '../shared/reasoning.js';
import { arrayOf, objectOf, type JsonObject } from '../../../../contract/json.js';

/**
 * OpenAI chat messages -> Anthropic Messages API `messages` (system messages are lifted out
 * elsewhere). An assistant message's `thinking_blocks` go first in its content, signatures as
 * they came; `cache_control` on a content part (or on a whole message: its last block) stays on
 * the block it was set on.
 */
const PROVIDER = 'anthropic';

type Block = Record<string, unknown>;

function block(piece: ContentPiece, param: string): Block | undefined {
  const out = baseBlock(piece, param);
  if (out && piece.cacheControl) out.cache_control = piece.cacheControl;
  return out;
}

function baseBlock(piece: ContentPiece, param: string): Block | undefined {
  switch (piece.kind) {
    case 'text':
      return piece.text === '' ? undefined : { type: 'text', text: piece.text };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: piece.mediaType, data: piece.data } };
    case 'image-url':
      return { type: 'image', source: { type: 'url', url: piece.url } };
    case 'file':
      if (piece.mediaType !== 'application/pdf' && !piece.mediaType.startsWith('text/')) {
        throw semanticError(`${PROVIDER} takes PDF or text files only (got ${piece.mediaType}).`, param);
      }
      return piece.mediaType === 'application/pdf'
        ? { type: 'document', source: { type: 'base64', media_type: piece.mediaType, data: piece.data } }
        : { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(piece.data, 'base64').toString('utf8') } };
  }
}

/** A user turn's content: kept a string when it is one (and carries no cache breakpoint), else content blocks. */
function userContent(content: unknown, param: string, cache: Block | undefined): string | Block[] {
  if (typeof content === 'string' && !cache) return content;
  const blocks = contentPieces(content, param, PROVIDER).flatMap((piece, i) => {
    const b = block(piece, `${param}[${i}]`);
    return b ? [b] : [];
  });
  return withCache(blocks, cache);
}

/** A message-level cache_control marks the message's last block. */
function withCache(blocks: Block[], cache: Block | undefined): Block[] {
  const last = blocks[blocks.length - 1];
  if (cache && last && last.cache_control === undefined) last.cache_control = cache;
  return blocks;
}

function toolResultContent(content: unknown, param: string): string | Block[] {
  if (typeof content === 'string' || content === null || content === undefined) return content ?? '';
  return userContent(content, param, undefined);
}

/** Thinking blocks as Anthropic takes them back: thinking with its signature, redacted as data. */
function thinkingContent(message: JsonObject, param: string): Block[] {
  return thinkingBlocksOf(message, param).map((b) =>
    b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking, signature: b.signature ?? '' } : { type: 'redacted_thinking', data: b.data },
  );
}

export function toAnthropicMessages(messages: unknown[]): Array<{ role: 'user' | 'assistant'; content: string | Block[] }> {
  const out: Array<{ role: 'user' | 'assistant'; content: string | Block[] }> = [];
  let openToolResults: Block[] | undefined;
  messages.forEach((message, i) => {
    const m = objectOf(message);
    const param = `messages[${i}]`;
    if (m.role !== 'tool') openToolResults = undefined;
    const cache = cacheControlOf(m.cache_control, `${param}.cache_control`);
    switch (m.role) {
      case 'system':
      case 'developer':
        return;
      case 'user':
        out.push({ role: 'user', content: userContent(m.content, `${param}.content`, cache) });
        return;
      case 'assistant': {
        const blocks: Block[] = thinkingContent(m, param);
        if (typeof m.content === 'string') {
          if (m.content !== '') blocks.push({ type: 'text', text: m.content });
        } else if (Array.isArray(m.content)) {
          for (const piece of contentPieces(m.content, `${param}.content`, PROVIDER)) {
            if (piece.kind === 'text' && piece.text !== '')
              blocks.push(piece.cacheControl ? { type: 'text', text: piece.text, cache_control: piece.cacheControl } : { type: 'text', text: piece.text });
          }
        }
        arrayOf(m.tool_calls).forEach((value, j) => {
          const call = objectOf(value);
          const fn = objectOf(call.function);
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: fn.name,
            input: parseToolArguments(fn.arguments, `${param}.tool_calls[${j}].function.arguments`),
          });
        });
        if (blocks.length > 0) out.push({ role: 'assistant', content: withCache(blocks, cache) });
        return;
      }
      case 'tool': {
        if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') {
          throw badRequest(`${param}.tool_call_id is required for tool messages.`, `${param}.tool_call_id`);
        }
        const result: Block = { type: 'tool_result', tool_use_id: m.tool_call_id, content: toolResultContent(m.content, `${param}.content`) };
        if (cache) result.cache_control = cache;
        if (openToolResults) openToolResults.push(result);
        else {
          openToolResults = [result];
          out.push({ role: 'user', content: openToolResults });
        }
        return;
      }
      default:
        throw roleRefusal(PROVIDER, m.role, param);
    }
  });
  return out;
}
