import type { AnswerError } from '../errors/answer-error.js';
import type { GatewayContext } from './context.js';
import { defineService, type GatewayServices } from './services.js';

/**
 * Another shape of error answer that a feature gives the requests of its routes (the models
 * feature: Anthropic's `{type:"error",error:{...}}` on /v1/messages called with anthropic-version).
 * Returns the error as this request answers it, or undefined when the request is none of its own.
 */
export type ErrorShaper = (ctx: GatewayContext, err: AnswerError) => AnswerError | undefined;

/**
 * The error shapes the features registered (at set-up, from their capabilities). normalize-error
 * asks them for every error it answers; the first that claims the request shapes it, and an
 * error no shaper claims keeps the contract's body. The kernel itself names no shape.
 */
export class ErrorShapes {
  private readonly shapers: ErrorShaper[] = [];

  add(shaper: ErrorShaper): void {
    this.shapers.push(shaper);
  }

  /** The error as `ctx` answers it. */
  shape(ctx: GatewayContext, err: AnswerError): AnswerError {
    for (const shaper of this.shapers) {
      const shaped = shaper(ctx, err);
      if (shaped) return shaped;
    }
    return err;
  }
}

export const ERROR_SHAPES = defineService<ErrorShapes>('error-shapes');

/** This config's error shapes (made on first use: a feature adds its shaper in its capability's setup). */
export function errorShapes(services: GatewayServices): ErrorShapes {
  return services.once(ERROR_SHAPES, () => new ErrorShapes());
}
