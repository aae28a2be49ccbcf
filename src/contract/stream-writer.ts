import type { StreamPart, Usage } from './stream-parts.js';
import type { StreamFormat } from './stream-format.js';
import { OpenAIChunkWriter } from './openai/chunk-writer.js';
import { ResponsesWriter } from './openai/responses-writer.js';
import { AnthropicMessagesWriter } from './anthropic/messages-writer.js';

/**
 * A writer of one streamed answer's SSE text: text for each part, and the event that ends a failed
 * stream. The model feature wraps it as the answer's stream encoder, which the HTTP edge runs.
 */
export interface StreamWriter {
  write(part: StreamPart): string;
  failure(body: unknown): string;
  readonly lastUsage: Usage | undefined;
}

/**
 * The writer of a streamed answer's format: OpenAI chat or text chunks, Anthropic Messages
 * events, Responses events (`request` is the request the answer echoes).
 */
export function createStreamWriter(format: StreamFormat, options: { includeUsage: boolean; request?: unknown; hiddenUsage?: boolean }): StreamWriter {
  switch (format) {
    case 'anthropic':
      return new AnthropicMessagesWriter();
    case 'responses':
      return new ResponsesWriter(options.request as Record<string, unknown> | undefined);
    default:
      return new OpenAIChunkWriter(format, options.includeUsage, options.hiddenUsage === true);
  }
}
