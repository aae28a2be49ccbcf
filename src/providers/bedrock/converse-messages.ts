import { badRequest } from '../../errors/gateway-error.js';
import { contentPieces, parseToolArguments, type ContentPiece } from '../shared/chat-content.js';

/** OpenAI chat messages -> Bedrock Converse `messages` (roles alternate: same-role turns are merged). */
const PROVIDER = 'bedrock';
type Block = Record<string, unknown>;

const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'text/html': 'html',
};

function block(piece: ContentPiece, param: string, position: number): Block | undefined {
  switch (piece.kind) {
    case 'text':
      return piece.text === '' ? undefined : { text: piece.text };
    case 'image': {
      const format = IMAGE_FORMATS[piece.mediaType];
      if (!format) throw badRequest(`${PROVIDER} takes PNG, JPEG, GIF or WebP images (got ${piece.mediaType}).`, param);
      return { image: { format, source: { bytes: piece.data } } };
    }
    case 'image-url':
      throw badRequest(`${PROVIDER} takes images only inline: send the image as a base64 data: URL.`, param);
    case 'file': {
      const format = DOCUMENT_FORMATS[piece.mediaType];
      if (!format) throw badRequest(`${PROVIDER} does not take files of type ${piece.mediaType}.`, param);
      const name = (piece.filename ?? `document ${position + 1}`).replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9 ()[\]-]/g, ' ').trim() || `document ${position + 1}`;
      return { document: { format, name, source: { bytes: piece.data } } };
    }
  }
}

function blocks(content: unknown, param: string): Block[] {
  return contentPieces(content, param, PROVIDER).flatMap((piece, i) => {
    const b = block(piece, `${param}[${i}]`, i);
    return b ? [b] : [];
  });
}

export function toConverseMessages(messages: any[]): Array<{ role: 'user' | 'assistant'; content: Block[] }> {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', content: Block[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  messages.forEach((m, i) => {
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return;
      case 'user':
        push('user', blocks(m.content, `${param}.content`));
        return;
      case 'assistant': {
        const content = blocks(typeof m.content === 'string' || Array.isArray(m.content) ? m.content : null, `${param}.content`);
        (m.tool_calls ?? []).forEach((call: any, j: number) => {
          content.push({
            toolUse: {
              toolUseId: call.id,
              name: call.function?.name,
              input: parseToolArguments(call.function?.arguments, `${param}.tool_calls[${j}].function.arguments`),
            },
          });
        });
        push('assistant', content);
        return;
      }
      case 'tool': {
        if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') {
          throw badRequest(`${param}.tool_call_id is required for tool messages.`, `${param}.tool_call_id`);
        }
        const result = blocks(m.content ?? '', `${param}.content`);
        push('user', [{ toolResult: { toolUseId: m.tool_call_id, content: result.length ? result : [{ text: '' }] } }]);
        return;
      }
      default:
        throw badRequest(`${PROVIDER} does not take messages with role "${String(m.role)}" (use tool messages for tool results).`, `${param}.role`);
    }
  });
  return out;
}

/** True when the conversation already holds tool calls or results (Converse then needs toolConfig). */
export function hasToolHistory(messages: any[]): boolean {
  return Array.isArray(messages) && messages.some((m) => m?.role === 'tool' || (Array.isArray(m?.tool_calls) && m.tool_calls.length > 0));
}
