import { GatewayError } from '../../contract/errors/gateway-error.js';
import { createStreamWriter } from '../../contract/stream-writer.js';
import { anthropicErrorBody } from '../../contract/anthropic/shapes.js';
import { anthropicErrorsFor } from './messages/anthropic-error.js';
import { TARGET, USAGE } from './model-request.js';
/** ctx.response as the model stages see it. */
export function modelAnswer(ctx) {
    return ctx.response;
}
/**
 * The encoder of one answer, picked by its format (read when the edge starts writing, so a
 * stage may still change the format's request): usage noted in the USAGE slot once the stream
 * is whole. A failed Anthropic stream ends with Anthropic's error shape when the request carries
 * anthropic-version (CONTRACT section 2), the contract's body otherwise.
 */
function modelEncoder(ctx, answer) {
    const writer = createStreamWriter(answer.format, { includeUsage: answer.includeUsage, request: answer.request });
    const anthropicErrors = answer.format === 'anthropic' && anthropicErrorsFor(ctx);
    return {
        write: (part) => writer.write(part),
        isEnd: (part) => part.type === 'done',
        failure: (body) => writer.failure(anthropicErrors ? anthropicErrorBody(contractError(body), ctx.id) : body),
        incomplete: () => {
            const provider = ctx.get(TARGET)?.provider;
            return new GatewayError('provider_error', `The ${provider ?? 'upstream'} stream ended before the answer was complete.`, { provider });
        },
        completed: () => {
            const usage = writer.lastUsage;
            if (usage)
                ctx.set(USAGE, usage);
        },
    };
}
/** The code and message of a contract error body (what Anthropic's error shape needs). */
function contractError(body) {
    const error = body?.error;
    return { code: typeof error?.code === 'string' ? error.code : 'internal_error', message: typeof error?.message === 'string' ? error.message : 'The stream failed.' };
}
/** A streamed model answer of `parts`, written in `format` (`request`: the request a Responses stream echoes). */
export function modelStream(ctx, status, format, includeUsage, parts, headers, request) {
    const answer = {
        kind: 'stream',
        status,
        format,
        includeUsage,
        parts,
        encoder: () => modelEncoder(ctx, answer),
    };
    if (headers)
        answer.headers = headers;
    if (request !== undefined)
        answer.request = request;
    return answer;
}
//# sourceMappingURL=stream-answer.js.map