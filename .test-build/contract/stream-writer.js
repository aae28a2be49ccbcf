import { OpenAIChunkWriter } from './openai/chunk-writer.js';
import { ResponsesWriter } from './openai/responses-writer.js';
import { AnthropicMessagesWriter } from './anthropic/messages-writer.js';
/**
 * The writer of a streamed answer's format: OpenAI chat or text chunks, Anthropic Messages
 * events, Responses events (`request` is the request the answer echoes).
 */
export function createStreamWriter(format, options) {
    switch (format) {
        case 'anthropic':
            return new AnthropicMessagesWriter();
        case 'responses':
            return new ResponsesWriter(options.request);
        default:
            return new OpenAIChunkWriter(format, options.includeUsage);
    }
}
//# sourceMappingURL=stream-writer.js.map