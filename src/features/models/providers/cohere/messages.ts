import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import { contentPieces, contentText, roleRefusal } from '../shared/chat-content.js';
import { objectOf } from '../../../../contract/json.js';

/**
 * OpenAI chat messages -> Cohere v2 chat messages. System and developer messages stay in
 * place (role system); an assistant's text beside its tool calls becomes Cohere's tool_plan;
 * tool results are role tool with the call's id.
 */
const PROVIDER = 'cohere';

function userContent(content: unknown, param: string): string | Array<Record<string, unknown>> {
  if (typeof content === 'string') return content;
  return contentPieces(content, param, PROVIDER).map((piece, i) => {
    if (piece.kind === 'text') return { type: 'text', text: piece.text };
    if (piece.kind === 'image') return { type: 'image_url', image_url: { url: `data:${piece.mediaType};base64,${piece.data}` } };
    if (piece.kind === 'image-url') return { type: 'image_url', image_url: { url: piece.url } };
    throw semanticError(`${PROVIDER} does not take files in chat messages.`, `${param}[${i}]`);
  });
}

export function toCohereMessages(messages: unknown[]): Array<Record<string, unknown>> {
  return messages.map((message, i) => {
    const m = objectOf(message);
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: contentText(m.content, `${param}.content`, PROVIDER) };
      case 'user':
        return { role: 'user', content: userContent(m.content, `${param}.content`) };
      case 'assistant': {
        const text = m.content === null || m.content === undefined ? '' : contentText(m.content, `${param}.content`, PROVIDER);
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        if (calls.length === 0) return { role: 'assistant', content: text };
        const out: Record<string, unknown> = {
          role: 'assistant',
          tool_calls: calls.map((value: unknown) => {
            const call = objectOf(value);
            const fn = objectOf(call.function);
            return {
              id: call.id,
              type: 'function',
              function: {
                name: fn.name,
                arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
              },
            };
          }),
        };
        if (text !== '') out.tool_plan = text;
        return out;
      }
      case 'tool':
        if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') {
          throw badRequest(`${param}.tool_call_id is required for tool messages.`, `${param}.tool_call_id`);
        }
        return { role: 'tool', tool_call_id: m.tool_call_id, content: contentText(m.content ?? '', `${param}.content`, PROVIDER) };
      default:
        throw roleRefusal(PROVIDER, m.role, param);
    }
  });
}
