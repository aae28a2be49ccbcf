/**
 * A problem the HTTP edge finds with a request by itself (a body too large, malformed JSON, a
 * broken upload): a status, a message and the part of the request at fault. The gateway's error
 * mapping (given to the edge at start-up) turns it into the catalogue's error of that status.
 */
export class RequestError extends Error {
  override readonly name = 'RequestError';

  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** 400: the request is malformed or misses something (`param` names what). */
export const badRequest = (message: string, param?: string) => new RequestError(400, message, param ?? null);

export function isRequestError(value: unknown): value is RequestError {
  return value instanceof RequestError;
}
