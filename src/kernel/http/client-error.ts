import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorMapping } from '../errors/answer-error.js';
import { redactAnswer } from '../errors/redact.js';
import { RequestError } from '../errors/request-error.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** What a request Node could not parse is answered with (it never reached a route): status, message, param. */
function problemFor(code: string | undefined): RequestError {
  if (code === 'HPE_HEADER_OVERFLOW') return new RequestError(431, 'The request headers are too large.', 'headers');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestError(408, 'The request did not arrive in time.');
  return new RequestError(400, 'The request is not valid HTTP (a malformed request line or header, or a header value with a control character).', 'headers');
}

/**
 * The HTTP server's 'clientError' handler: a request Node's parser refuses (headers too large,
 * a header value with CR, LF or NUL, a malformed request line) gets the contract's error body
 * (431 for headers too large, 400 otherwise; made by the gateway's error mapping, as every
 * other error answer) instead of Node's empty answer, and the connection is closed. A socket
 * that is gone, or whose answer already began, is just closed.
 */
export function clientErrorHandler(mapError: ErrorMapping): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // HPE_INVALID_EOF_STATE: the caller closed its side in the middle of a request body (it was
    // answered already, or is gone): nobody waits for another answer.
    if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const problem = problemFor(err.code);
    const body = redactAnswer(JSON.stringify(mapError(problem).answerBody()));
    socket.end(
      `HTTP/1.1 ${problem.status} ${REASONS[problem.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // A peer that never reads its answer must not keep the socket.
    socket.setTimeout(5000, () => socket.destroy());
  };
}

/**
 * The HTTP server's 'checkExpectation' handler: an Expect value other than 100-continue is
 * ignored (HTTP lets a server do so) and the request served as usual, rather than Node's
 * bodiless 417.
 */
export function serveDespiteExpectation(server: { emit(event: 'request', req: IncomingMessage, res: ServerResponse): boolean }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    server.emit('request', req, res);
  };
}
