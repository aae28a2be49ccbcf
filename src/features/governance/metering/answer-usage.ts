import type { AnyRouteSpec } from '../../../contract/routes.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { BODY } from '../../../kernel/engine/request-body.js';
import { USAGE } from '../../models/index.js';
import { USAGE_KEY, usageObjectAfter } from '../../../contract/usage-member.js';
import { NO_USAGE, usageClasses, type TokenUsage } from '../prices/usage-classes.js';

/** How far past the last `"usage"` key of a raw answer its object is looked for. */
const USAGE_WINDOW = 8192;

/** The `usage` object of an answer's bytes, read without parsing the whole answer (the last `"usage": {...}`). */
export function usageOfRaw(raw: Buffer): Record<string, unknown> | undefined {
  const at = raw.lastIndexOf(USAGE_KEY);
  if (at < 0) return undefined;
  const limit = Math.min(raw.length, at + USAGE_KEY.length + USAGE_WINDOW);
  const open = usageObjectAfter(raw, at);
  if (open < 0 || open >= limit) return undefined;
  let depth = 0;
  let inString = false;
  // Scanned as bytes: the bytes of '"', '\\', '{' and '}' never occur inside a UTF-8 multi-byte character.
  for (let i = open; i < limit; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) {
      try {
        const usage = JSON.parse(raw.toString('utf8', open, i + 1));
        return usage && typeof usage === 'object' ? (usage as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The JSON answer's body as an object (a raw answer parsed only when its fields are needed). */
function answerBody(ctx: GatewayContext): Record<string, unknown> | undefined {
  const response = ctx.response;
  if (response?.kind !== 'json') return undefined;
  if (response.body && typeof response.body === 'object') return response.body as Record<string, unknown>;
  if (!response.raw) return undefined;
  try {
    const parsed = JSON.parse(response.raw.toString('utf8'));
    return parsed && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function usageBlock(ctx: GatewayContext): unknown {
  const streamed = ctx.get(USAGE);
  if (streamed) return streamed;
  const response = ctx.response;
  if (response?.kind !== 'json') return undefined;
  if (response.body && typeof response.body === 'object') return (response.body as { usage?: unknown }).usage;
  return response.raw ? usageOfRaw(response.raw) : undefined;
}

const MEDIA_OPERATIONS = new Set(['images.generations', 'images.edits', 'audio.speech', 'audio.transcriptions', 'audio.translations']);

/**
 * What a successful answer used, in disjoint classes: the usage block it reports (stream or
 * JSON); images by the images returned, speech by the characters of its input, transcriptions
 * by the seconds of audio the answer reports (their token usage, where given, is priced too).
 * Undefined when the answer reports nothing the gateway can bill.
 */
export function answerUsage(ctx: GatewayContext<AnyRouteSpec>): TokenUsage | undefined {
  const block = usageBlock(ctx);
  const usage = block ? usageClasses(block) : undefined;
  const operation: string = ctx.endpoint.operation;
  if (!MEDIA_OPERATIONS.has(operation)) return usage;
  const out: TokenUsage = { ...(usage ?? NO_USAGE) };
  if (operation === 'audio.speech') {
    const input = ctx.get(BODY)?.input;
    if (typeof input === 'string') out.characters = input.length;
  } else if (operation.startsWith('images.')) {
    // Images priced per image: the token classes of a usage block (newer image models) are priced too.
    const data = answerBody(ctx)?.data;
    if (Array.isArray(data)) out.images = data.length;
  } else {
    const body = answerBody(ctx);
    const u = body?.usage as { type?: unknown; seconds?: unknown } | undefined;
    const seconds = u?.type === 'duration' ? u.seconds : body?.duration;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) out.audioSeconds = Math.ceil(seconds);
  }
  return out;
}
