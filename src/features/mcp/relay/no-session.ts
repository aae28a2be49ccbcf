import type { ServerResponse } from 'node:http';
import { notFound } from '../../../contract/errors/gateway-error.js';

/**
 * An unknown session id (ended, forged, another caller's or another endpoint's): 404 with the
 * contract's error body, the same on /mcp and every /mcp/<server>.
 */
export const noSuchSession = () => notFound('No such session: open a new one with initialize.', 'Mcp-Session-Id');

/** Answers noSuchSession() where the answer comes after the pipeline let go (a request held for another instance). */
export function answerNoSession(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return void res.end();
  const text = JSON.stringify(noSuchSession().answerBody());
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
