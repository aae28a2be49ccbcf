import { badRequest, GatewayError, semanticError } from '../../../../contract/errors/gateway-error.js';
import { objectOf, stringOf } from '../../../../contract/json.js';

/**
 * Reading OpenAI chat messages: content parts normalized once for every translated provider
 * (text, inline data from data: URLs, remote URLs), tool call arguments parsed. A malformed
 * value is a 400; a well-formed one (a part type or role OpenAI defines, a file by id) that
 * the provider cannot take is a 422 (semantic_error).
 */
export type ContentPiece = (
  | { kind: 'text'; text: string }
  | { kind: 'image'; mediaType: string; data: string }
  | { kind: 'image-url'; url: string }
  | { kind: 'file'; mediaType: string; data: string; filename?: string }
) & {
  /** The part's `cache_control` (Anthropic-style prompt caching breakpoint), for providers that take it. */
  cacheControl?: CacheControl;
};

/** A prompt-caching breakpoint as callers write it: `{"type": "ephemeral", "ttl"?: "5m" | "1h"}`. */
export type CacheControl = { type: string; ttl?: string };

/** A `cache_control` value, checked; undefined when absent. */
export function cacheControlOf(value: unknown, param: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof value !== 'object' || Array.isArray(value) || typeof v.type !== 'string') {
    throw badRequest(`${param} must be an object like {"type": "ephemeral"}.`, param);
  }
  if (v.ttl !== undefined && typeof v.ttl !== 'string') throw badRequest(`${param}.ttl must be a string such as "5m" or "1h".`, `${param}.ttl`);
  return v.ttl === undefined ? { type: v.type } : { type: v.type, ttl: v.ttl as string };
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*?);base64,(.*)$/s;

/** A base64 data: URL split into its media type and data; undefined for other URLs. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = DATA_URL.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1]!.toLowerCase(), data: m[3]! };
}

/** Content part types of OpenAI's chat API that a translation may not take (the others are read below). */
const OPENAI_PART_TYPES = new Set<unknown>(['input_audio']);

/** Message roles of OpenAI's chat API that a translation may not take. */
const OPENAI_ROLES = new Set<unknown>(['function']);

/** The pieces of a message's content (a string or a list of parts); `param` names it in errors. */
export function contentPieces(content: unknown, param: string, provider: string): ContentPiece[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) throw badRequest(`${param} must be a string or a list of content parts.`, param);
  return content.map((part: unknown, i: number): ContentPiece => {
    const piece = contentPiece(part, `${param}[${i}]`, provider);
    const cache = cacheControlOf(objectOf(part).cache_control, `${param}[${i}].cache_control`);
    return cache ? { ...piece, cacheControl: cache } : piece;
  });
}

function contentPiece(value: unknown, where: string, provider: string): ContentPiece {
  const part = objectOf(value);
  switch (part.type) {
    case 'text':
      return { kind: 'text', text: String(part.text ?? '') };
    case 'refusal':
      // an earlier answer's refusal goes back as that answer's text
      return { kind: 'text', text: String(part.refusal ?? '') };
    case 'image_url': {
      const url = typeof part.image_url === 'string' ? part.image_url : objectOf(part.image_url).url;
      if (typeof url !== 'string' || url === '') throw badRequest(`${where}.image_url.url is required.`, `${where}.image_url.url`);
      const data = parseDataUrl(url);
      if (data) return { kind: 'image', mediaType: data.mediaType, data: data.data };
      if (/^https?:\/\//i.test(url)) return { kind: 'image-url', url };
      throw badRequest(`${where}.image_url.url must be an http(s) URL or a base64 data: URL.`, `${where}.image_url.url`);
    }
    case 'file': {
      const file = objectOf(part.file);
      const data = typeof file.file_data === 'string' ? parseDataUrl(file.file_data) : undefined;
      if (!data) {
        const message = `${provider} takes files only inline, as a base64 data: URL in file.file_data.`;
        // A file by id (or data that is not a data: URL) names a file: well-formed, but not one this provider can take.
        const named = typeof file.file_id === 'string' || typeof file.file_data === 'string';
        throw named ? semanticError(message, `${where}.file`) : badRequest(message, `${where}.file`);
      }
      return { kind: 'file', mediaType: data.mediaType, data: data.data, filename: stringOf(file.filename) };
    }
    default: {
      const message = `${provider} does not accept content parts of type "${String(part.type)}".`;
      throw OPENAI_PART_TYPES.has(part.type) ? semanticError(message, `${where}.type`) : badRequest(message, `${where}.type`);
    }
  }
}

/**
 * A message whose role `provider` does not take: a 422 for a role OpenAI defines (the legacy
 * `function` role), a 400 for one no API has.
 */
export function roleRefusal(provider: string, role: unknown, param: string): GatewayError {
  const message = `${provider} does not take messages with role "${String(role)}" (use tool messages for tool results).`;
  return OPENAI_ROLES.has(role) ? semanticError(message, `${param}.role`) : badRequest(message, `${param}.role`);
}

/** The text of a content value, parts joined; non-text parts are refused. */
export function contentText(content: unknown, param: string, provider: string): string {
  return contentPieces(content, param, provider)
    .map((piece) => {
      if (piece.kind !== 'text') throw badRequest(`${provider} takes only text in ${param}.`, param);
      return piece.text;
    })
    .join('');
}

/** A tool call's JSON arguments as an object (providers with structured tool input). */
export function parseToolArguments(args: unknown, param: string): Record<string, unknown> {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args === 'object') return args as Record<string, unknown>;
  try {
    const parsed = JSON.parse(String(args));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw badRequest(`${param} must be a JSON object in a string.`, param);
}

/** System and developer messages, in order, as text. */
export function systemTexts(messages: unknown[], provider: string): string[] {
  const out: string[] = [];
  messages.forEach((message, i) => {
    const m = objectOf(message);
    if (m.role === 'system' || m.role === 'developer') {
      const text = contentText(m.content, `messages[${i}].content`, provider);
      if (text !== '') out.push(text);
    }
  });
  return out;
}
