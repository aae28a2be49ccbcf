import { anthropicErrorBody } from '../../../contract/anthropic/shapes.js';
/**
 * Whether this request's errors take Anthropic's shape: an Anthropic-format route (/v1/messages)
 * called with `anthropic-version`, as Anthropic's clients do (CONTRACT section 2).
 */
export function anthropicErrorsFor(ctx) {
    return ctx.endpoint.format === 'anthropic' && ctx.headers['anthropic-version'] !== undefined;
}
/**
 * An error answered in Anthropic's shape (`{type:"error",error:{type,message},request_id}`): the
 * status, headers and provider of the gateway error it wraps, whose code picks Anthropic's type.
 */
export class AnthropicErrorAnswer {
    inner;
    requestId;
    constructor(inner, requestId) {
        this.inner = inner;
        this.requestId = requestId;
    }
    get status() {
        return this.inner.status;
    }
    get code() {
        return this.inner.code;
    }
    get message() {
        return this.inner.message;
    }
    set message(text) {
        this.inner.message = text;
    }
    get headers() {
        return this.inner.headers;
    }
    get provider() {
        return this.inner.provider;
    }
    answerBody() {
        return anthropicErrorBody({ code: this.inner.code ?? 'internal_error', message: this.inner.message }, this.requestId);
    }
}
/** The error as this request answers it: Anthropic's shape where anthropicErrorsFor says so. */
export function shapedError(ctx, err) {
    return anthropicErrorsFor(ctx) && !(err instanceof AnthropicErrorAnswer) ? new AnthropicErrorAnswer(err, ctx.id) : err;
}
//# sourceMappingURL=anthropic-error.js.map