import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import { cacheControlOf, contentPieces, parseToolArguments, roleRefusal, type ContentPiece } from '../shared/chat-content.js';
import { thinkingBlocksOf } from '../shared/reasoning.js';
import { arrayOf, objectOf, objectsOf, type JsonObject } from '../../../../contract/json.js';

/**
 * OpenAI chat messages -> Bedrock Converse `messages` (roles alternate: same-role turns are
 * merged). An assistant message's `thinking_blocks` come first as reasoningContent blocks
 * (text with its signature, or the redacted bytes); `cache_control` on a part (or a whole
 * message) becomes a cachePoint block right after it.
 */
const PROVIDER = 'bedrock';
type Block = Record<string, unknown>;

/** Converse's prompt-caching breakpoint. */
export const CACHE_POINT: Block = { cachePoint: { type: 'default' } };

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'text/html': 'html',
};

/** A content piece as a Converse block; an image or file Converse cannot take (well-formed, but not here) is a 422. */
function block(piece: ContentPiece, param: string, position: number): Block | undefined {
  switch (piece.kind) {
    case 'text':
      return piece.text === '' ? undefined : { text: piece.text };
    case 'image': {
      const format = IMAGE_FORMATS[piece.mediaType];
      if (!format) throw semanticError(`${PROVIDER} takes PNG, JPEG, GIF or WebP images (got ${piece.mediaType}).`, param);
      return { image: { format, source: { bytes: piece.data } } };
    }
    case 'image-url':
      throw semanticError(`${PROVIDER} takes images only inline: send the image as a base64 data: URL.`, param);
    case 'file': {
      const format = DOCUMENT_FORMATS[piece.mediaType];
      if (!format) throw semanticError(`${PROVIDER} does not take files of type ${piece.mediaType}.`, param);
      const name =
        (piece.filename ?? `document ${position + 1}`)
          .replace(/\.[^.]*$/, '')
          .replace(/[^A-Za-z0-9 ()[\]-]/g, ' ')
          .trim() || `document ${position + 1}`;
      return { document: { format, name, source: { bytes: piece.data } } };
    }
  }
}

function blocks(content: unknown, param: string): Block[] {
  return contentPieces(content, param, PROVIDER).flatMap((piece, i) => {
    const b = block(piece, `${param}[${i}]`, i);
    if (!b) return piece.cacheControl ? [{ ...CACHE_POINT }] : [];
    return piece.cacheControl ? [b, { ...CACHE_POINT }] : [b];
  });
}

/** A message-level cache_control: a cachePoint after the message's blocks. */
function withCache(content: Block[], message: JsonObject, param: string): Block[] {
  if (cacheControlOf(message.cache_control, `${param}.cache_control`) && content.length > 0 && !('cachePoint' in content[content.length - 1]!)) content.push({ ...CACHE_POINT });
  return content;
}

function reasoningBlocks(message: JsonObject, param: string): Block[] {
  return thinkingBlocksOf(message, param).map((b) =>
    b.type === 'thinking'
      ? { reasoningContent: { reasoningText: b.signature ? { text: b.thinking, signature: b.signature } : { text: b.thinking } } }
      : { reasoningContent: { redactedContent: b.data } },
  );
}

export function toConverseMessages(messages: unknown[]): Array<{ role: 'user' | 'assistant'; content: Block[] }> {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', content: Block[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  messages.forEach((message, i) => {
    const m = objectOf(message);
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return;
      case 'user':
        push('user', withCache(blocks(m.content, `${param}.content`), m, param));
        return;
      case 'assistant': {
        const content = [...reasoningBlocks(m, param), ...blocks(typeof m.content === 'string' || Array.isArray(m.content) ? m.content : null, `${param}.content`)];
        arrayOf(m.tool_calls).forEach((value, j) => {
          const call = objectOf(value);
          const fn = objectOf(call.function);
          content.push({
            toolUse: {
              toolUseId: call.id,
              name: fn.name,
              input: parseToolArguments(fn.arguments, `${param}.tool_calls[${j}].function.arguments`),
            },
          });
        });
        push('assistant', withCache(content, m, param));
        return;
      }
      case 'tool': {
        if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') {
          throw badRequest(`${param}.tool_call_id is required for tool messages.`, `${param}.tool_call_id`);
        }
        const all = blocks(m.content ?? '', `${param}.content`);
        const result = all.filter((b) => !('cachePoint' in b));
        const toolResult: Block[] = [{ toolResult: { toolUseId: m.tool_call_id, content: result.length ? result : [{ text: '' }] } }];
        // a breakpoint inside a tool result goes right after it (Converse takes none inside)
        if (result.length < all.length) toolResult.push({ ...CACHE_POINT });
        push('user', withCache(toolResult, m, param));
        return;
      }
      default:
        throw roleRefusal(PROVIDER, m.role, param);
    }
  });
  return out;
}

/** True when the conversation already holds tool calls or results (Converse then needs toolConfig). */
export function hasToolHistory(messages: unknown): boolean {
  return objectsOf(messages).some((m) => m.role === 'tool' || arrayOf(m.tool_calls).length > 0);
}
