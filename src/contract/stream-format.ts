import type { Operation } from './operations.js';

/**
 * The wire format a streamed answer is written in by the HTTP edge: OpenAI chat chunks, text
 * completion chunks, Anthropic Messages events, or Responses events.
 */
export type StreamFormat = 'chat' | 'text' | 'anthropic' | 'responses';

const FORMATS: Partial<Record<Operation, StreamFormat>> = {
  completions: 'text',
  'messages.create': 'anthropic',
  'responses.create': 'responses',
};

/** The format of an operation's streamed answers. */
export function streamFormat(operation: Operation): StreamFormat {
  return FORMATS[operation] ?? 'chat';
}
