import type { FakeReply } from '../helpers/fake-upstream.js';
import { fixtureChunks, fixtureJson } from '../helpers/fixtures.js';
import { encodeEvents, slices } from '../helpers/aws-eventstream-encoder.js';

/** Fake replies built from recorded fixtures, shared by the conformance cases. */

/** A whole JSON answer: test/fixtures/<provider>/<name>.json. */
export function jsonReply(provider: string, name: string): FakeReply {
  return { json: fixtureJson(provider, name) };
}

/** An SSE stream: test/fixtures/<provider>/<name>.chunks.txt, one write per event. */
export function sseReply(provider: string, name: string): FakeReply {
  return { chunks: fixtureChunks(provider, name), headers: { 'content-type': 'text/event-stream' } };
}

/**
 * An AWS event stream: test/fixtures/<provider>/<name>.events.json encoded by the test
 * encoder, written in odd-sized pieces so messages cross write boundaries.
 */
export function eventStreamReply(provider: string, name: string, pieceSize = 37): FakeReply {
  const bytes = encodeEvents(fixtureJson(provider, name));
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'f3b0a0e4-0000-4000-8000-000000000000' });
    for (const piece of slices(bytes, pieceSize)) res.write(piece);
    res.end();
  };
}

/** The error answers of test/fixtures/<provider>/errors.json ({ scenario: { status, headers, body } }). */
export function errorReplies(provider: string): Record<string, FakeReply> {
  const all = fixtureJson(provider, 'errors') as Record<string, { status: number; headers?: Record<string, string>; body: unknown }>;
  const out: Record<string, FakeReply> = {};
  for (const [name, e] of Object.entries(all)) out[name] = { json: e.body, status: e.status, headers: e.headers };
  return out;
}
