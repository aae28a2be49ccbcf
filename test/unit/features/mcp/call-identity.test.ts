import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallIdentity, headersOf } from '../../../../src/features/mcp/upstream/call-identity.js';

/** A transport that records what it was sent and answers each send when told to. */
function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async (message: JSONRPCMessage) => {
      sent.push(message);
    },
  } as unknown as Transport;
  return { transport, sent };
}

const body = (message: unknown) => ({ method: 'POST', body: JSON.stringify(message) });

describe('CallIdentity: a caller’s headers handed to their one request on a shared transport', () => {
  it('tags the request sent inside run with its headers until the call settles, and only that one', async () => {
    const hand = new CallIdentity();
    const { transport } = fakeTransport();
    const tags = new Map<string, Record<string, string>>();
    hand.tag(transport, tags);
    let answer!: (v: string) => void;
    const call = hand.run({ 'x-user-email': 'a@example.com' }, () => {
      void transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} });
      // A second send in the same turn is not the handed call's.
      void transport.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: {} });
      return new Promise<string>((resolve) => (answer = resolve));
    });
    expect(headersOf(body({ jsonrpc: '2.0', id: 7, method: 'tools/call' }), tags)).toEqual({ 'x-user-email': 'a@example.com' });
    expect(headersOf(body({ jsonrpc: '2.0', id: 8, method: 'tools/call' }), tags)).toBeUndefined();
    // Its cancellation names the call's id: it carries the call's headers too.
    expect(headersOf(body({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }), tags)).toEqual({ 'x-user-email': 'a@example.com' });
    answer('done');
    expect(await call).toBe('done');
    expect(tags.size).toBe(0);
    expect(headersOf(body({ jsonrpc: '2.0', id: 7, method: 'tools/call' }), tags)).toBeUndefined();
  });

  it('keeps concurrent callers apart, takes the tag off a call that fails, and tags nothing sent outside run', async () => {
    const hand = new CallIdentity();
    const { transport, sent } = fakeTransport();
    const tags = new Map<string, Record<string, string>>();
    hand.tag(transport, tags);
    const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
    const calls = ['a', 'b', 'c'].map((who, i) =>
      hand.run({ who }, () => {
        void transport.send({ jsonrpc: '2.0', id: `r${i}`, method: 'tools/call' });
        return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
      }),
    );
    void transport.send({ jsonrpc: '2.0', id: 99, method: 'ping' });
    // A response the client sends (to a server's request) is never tagged.
    void hand.run({ who: 'x' }, () => transport.send({ jsonrpc: '2.0', id: 5, result: {} }));
    expect(sent).toHaveLength(5);
    expect(['r0', 'r1', 'r2', 99, 5].map((id) => headersOf(body({ jsonrpc: '2.0', id, method: 'tools/call' }), tags)?.who)).toEqual(['a', 'b', 'c', undefined, undefined]);
    pending[1]!.reject(new Error('refused'));
    await expect(calls[1]).rejects.toThrow('refused');
    expect(headersOf(body({ jsonrpc: '2.0', id: 'r1', method: 'tools/call' }), tags)).toBeUndefined();
    pending[0]!.resolve();
    pending[2]!.resolve();
    await Promise.all([calls[0], calls[2]]);
    expect(tags.size).toBe(0);
  });

  it('a run whose function throws before sending leaves no hand-off behind', () => {
    const hand = new CallIdentity();
    const { transport } = fakeTransport();
    const tags = new Map<string, Record<string, string>>();
    hand.tag(transport, tags);
    expect(() =>
      hand.run({ who: 'a' }, () => {
        throw new Error('not connected');
      }),
    ).toThrow('not connected');
    void transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
    expect(tags.size).toBe(0);
  });

  it('headersOf reads any body without throwing, and finds only tagged ids', () => {
    const tags = new Map([[JSON.stringify(3), { who: 'a' }]]);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.constant(undefined)), (text) => {
        const found = headersOf(text === undefined ? { method: 'GET' } : { method: 'POST', body: text }, tags);
        if (found !== undefined) expect(found).toEqual({ who: 'a' });
      }),
    );
    expect(headersOf({ method: 'POST', body: '[{"jsonrpc":"2.0","id":3,"method":"x"}]' }, tags)).toBeUndefined();
    expect(headersOf({ method: 'POST', body: '{"jsonrpc":"2.0","id":"3","method":"x"}' }, tags)).toBeUndefined();
    expect(headersOf({ method: 'POST', body: 'null' }, tags)).toBeUndefined();
    expect(headersOf({ method: 'DELETE' }, tags)).toBeUndefined();
  });
});
