import type { Operation } from '../../../contract/operations.js';
import { semanticError } from '../../../contract/errors/gateway-error.js';
import type { ChatCompletionRequest } from '../../../generated/requests/chat-completions.js';
import type { CompletionRequest } from '../../../generated/requests/completions.js';
import type { ImageGenerationRequest } from '../../../generated/requests/images-generations.js';

/**
 * Rules a JSON Schema cannot say: well-formed requests that are impossible (422). Checked
 * after the schema, before anything goes upstream.
 */
export type SemanticRule = (body: Record<string, unknown>) => void;

/** The rule of one operation, which reads the body as its request type: validate runs the route's schema first. */
function ruleOf<Body>(rule: (body: Body) => void): SemanticRule {
  return rule as SemanticRule;
}

const OLDER_IMAGE_FAMILY = 'dall-e-2';
const NEWER_IMAGE_FAMILY = 'dall-e-3';
const OLDER_SIZES = ['256x256', '512x512', '1024x1024'];
const NEWER_SIZES = ['1024x1024', '1024x1792', '1792x1024'];

function imageGenerationRules(body: ImageGenerationRequest): void {
  const model = body.model ?? OLDER_IMAGE_FAMILY;
  if (model === NEWER_IMAGE_FAMILY) {
    if (body.n !== undefined && body.n !== 1) throw semanticError(`${NEWER_IMAGE_FAMILY} generates one image per request: n must be 1.`, 'n');
    if (body.size !== undefined && !NEWER_SIZES.includes(body.size)) {
      throw semanticError(`size must be one of ${NEWER_SIZES.join(', ')} for ${NEWER_IMAGE_FAMILY}.`, 'size');
    }
    if (body.quality !== undefined && !['standard', 'hd'].includes(body.quality)) {
      throw semanticError(`quality must be standard or hd for ${NEWER_IMAGE_FAMILY}.`, 'quality');
    }
    if (typeof body.prompt === 'string' && body.prompt.length > 4000) throw semanticError(`prompt must be at most 4000 characters for ${NEWER_IMAGE_FAMILY}.`, 'prompt');
  } else if (model === OLDER_IMAGE_FAMILY) {
    if (body.size !== undefined && !OLDER_SIZES.includes(body.size)) {
      throw semanticError(`size must be one of ${OLDER_SIZES.join(', ')} for ${OLDER_IMAGE_FAMILY}.`, 'size');
    }
    if (body.quality !== undefined && body.quality !== 'standard') throw semanticError(`quality is only for ${NEWER_IMAGE_FAMILY}.`, 'quality');
    if (body.style !== undefined) throw semanticError(`style is only for ${NEWER_IMAGE_FAMILY}.`, 'style');
    if (typeof body.prompt === 'string' && body.prompt.length > 1000) throw semanticError(`prompt must be at most 1000 characters for ${OLDER_IMAGE_FAMILY}.`, 'prompt');
  }
}

function completionRules(body: CompletionRequest): void {
  if (body.best_of !== undefined && body.n !== undefined && body.best_of < body.n) {
    throw semanticError('best_of must be greater than or equal to n.', 'best_of');
  }
  if (body.stream === true && body.best_of !== undefined && body.best_of > 1) {
    throw semanticError('best_of cannot be used with stream.', 'best_of');
  }
}

function chatRules(body: ChatCompletionRequest): void {
  if (body.tool_choice && typeof body.tool_choice === 'object' && !body.tools?.length) {
    throw semanticError('tool_choice names a function but no tools were given.', 'tool_choice');
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    throw semanticError('stream_options is only allowed with stream: true.', 'stream_options');
  }
}

export const SEMANTIC_RULES: Partial<Record<Operation, SemanticRule>> = {
  'images.generations': ruleOf(imageGenerationRules),
  completions: ruleOf(completionRules),
  'chat.completions': ruleOf(chatRules),
};

export function registerSemanticRule(operation: Operation, rule: SemanticRule): void {
  const existing = SEMANTIC_RULES[operation];
  SEMANTIC_RULES[operation] = existing ? (body) => (existing(body), rule(body)) : rule;
}
