import type { BinaryAnswer, DirectAnswer, EmptyAnswer, GatewayContext, JsonAnswer, StreamAnswer, StreamEncoder } from '../../kernel/engine/context.js';
import { GatewayError } from '../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../contract/stream-parts.js';
import type { StreamFormat } from '../../contract/stream-format.js';
import { createStreamWriter, type StreamWriter } from '../../contract/stream-writer.js';
import { anthropicErrorBody } from '../../contract/anthropic/shapes.js';
import { anthropicErrorsFor } from './messages/anthropic-error.js';
import { TARGET, USAGE } from './model-request.js';

/** A streamed model answer: its parts, written by the edge in the answer's format. */
export interface ModelStreamAnswer extends StreamAnswer<StreamPart> {
  /** Which format the encoder writes: OpenAI chat or text completion chunks, Anthropic Messages or Responses events. */
  format: StreamFormat;
  includeUsage: boolean;
  /** The gateway asked for usage the caller did not: noted for billing, its usage-only chunk left out. */
  hiddenUsage?: boolean;
  /** The request the answer echoes (the Responses format writes its settings into each response). */
  request?: unknown;
}

/** An answer of a provider-routed pipeline. */
export type ModelAnswer = JsonAnswer | ModelStreamAnswer | BinaryAnswer | EmptyAnswer | DirectAnswer;

/** ctx.response as the model stages see it. */
export function modelAnswer(ctx: GatewayContext): ModelAnswer | undefined {
  return ctx.response as ModelAnswer | undefined;
}

/**
 * The encoder of one answer, picked by its format (read when the edge starts writing, so a
 * stage may still change the format's request): usage noted in the USAGE slot once the stream
 * is whole. A failed Anthropic stream ends with Anthropic's error shape when the request carries
 * anthropic-version (CONTRACT section 2), the contract's body otherwise. One object per stream
 * (no closures), its writer made on first use: a stream passed through as bytes never writes a
 * part, and holds no writer for its life.
 */
class ModelEncoder implements StreamEncoder<StreamPart> {
  private writer: StreamWriter | undefined;
  private readonly format: StreamFormat;
  private readonly includeUsage: boolean;
  private readonly request: unknown;
  private readonly hiddenUsage: boolean;
  private readonly anthropicErrors: boolean;

  constructor(
    private readonly ctx: GatewayContext,
    answer: ModelStreamAnswer,
  ) {
    this.format = answer.format;
    this.includeUsage = answer.includeUsage;
    this.request = answer.request;
    this.hiddenUsage = answer.hiddenUsage === true;
    this.anthropicErrors = answer.format === 'anthropic' && anthropicErrorsFor(ctx);
  }

  private streamWriter(): StreamWriter {
    return (this.writer ??= createStreamWriter(this.format, { includeUsage: this.includeUsage, request: this.request, hiddenUsage: this.hiddenUsage }));
  }

  write(part: StreamPart): string {
    return this.streamWriter().write(part);
  }

  isEnd(part: StreamPart): boolean {
    return part.type === 'done';
  }

  failure(body: unknown): string {
    return this.streamWriter().failure(this.anthropicErrors ? anthropicErrorBody(contractError(body), this.ctx.id) : body);
  }

  incomplete(): unknown {
    const provider = this.ctx.get(TARGET)?.provider;
    return new GatewayError('provider_error', `The ${provider ?? 'upstream'} stream ended before the answer was complete.`, { provider });
  }

  completed(): void {
    const usage = this.writer?.lastUsage;
    if (usage) this.ctx.set(USAGE, usage);
  }
}

/** The code and message of a contract error body (what Anthropic's error shape needs). */
function contractError(body: unknown): { code: string; message: string } {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return { code: typeof error?.code === 'string' ? error.code : 'internal_error', message: typeof error?.message === 'string' ? error.message : 'The stream failed.' };
}

/** A streamed model answer of `parts`, written in `format` (`request`: the request a Responses stream echoes). */
export function modelStream(
  ctx: GatewayContext,
  status: number,
  format: StreamFormat,
  includeUsage: boolean,
  parts: AsyncIterable<StreamPart>,
  headers?: Record<string, string>,
  request?: unknown,
): ModelStreamAnswer {
  const answer: ModelStreamAnswer = {
    kind: 'stream',
    status,
    format,
    includeUsage,
    parts,
    encoder: () => new ModelEncoder(ctx, answer),
  };
  if (headers) answer.headers = headers;
  if (request !== undefined) answer.request = request;
  return answer;
}
