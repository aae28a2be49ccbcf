import type { GatewayContext } from '../../../kernel/engine/context.js';
import type { AnswerError } from '../../../kernel/errors/answer-error.js';
import type { ErrorShaper } from '../../../kernel/engine/error-shapes.js';
import { anthropicErrorBody } from '../../../contract/anthropic/shapes.js';
import type { RouteSpec } from '../../../contract/routes.js';

/**
 * Whether this request's errors take Anthropic's shape: an Anthropic-format route (/v1/messages)
 * called with `anthropic-version`, as Anthropic's clients do (CONTRACT section 2).
 */
export function anthropicErrorsFor(ctx: GatewayContext): boolean {
  return (ctx.endpoint as Partial<RouteSpec>).format === 'anthropic' && ctx.headers['anthropic-version'] !== undefined;
}

/**
 * An error answered in Anthropic's shape (`{type:"error",error:{type,message},request_id}`): the
 * status, headers and provider of the gateway error it wraps, whose code picks Anthropic's type.
 */
export class AnthropicErrorAnswer implements AnswerError {
  constructor(
    readonly inner: AnswerError & { code?: string },
    private readonly requestId: string,
  ) {}

  get status(): number {
    return this.inner.status;
  }

  get code(): string | undefined {
    return this.inner.code;
  }

  get message(): string {
    return this.inner.message;
  }

  set message(text: string) {
    this.inner.message = text;
  }

  get headers(): Record<string, string> | undefined {
    return this.inner.headers;
  }

  get provider(): string | null | undefined {
    return this.inner.provider;
  }

  answerBody(): unknown {
    return anthropicErrorBody({ code: this.inner.code ?? 'internal_error', message: this.inner.message }, this.requestId);
  }
}

/**
 * The error shape the models feature registers (kernel/engine/error-shapes.ts): Anthropic's
 * where anthropicErrorsFor says so, for every error normalize-error answers.
 */
export const anthropicErrorShape: ErrorShaper = (ctx, err) =>
  anthropicErrorsFor(ctx) && !(err instanceof AnthropicErrorAnswer) ? new AnthropicErrorAnswer(err, ctx.id) : undefined;
