import { describe, expect, it } from 'vitest';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SessionLinks } from '../../../../src/features/mcp/relay/session-links.js';
import type { UpstreamLink, UpstreamServer } from '../../../../src/features/mcp/upstream/upstream-server.js';
import { createLogger } from '../../../../src/kernel/observability/logger.js';

/** A tool server that logs, whose answers to logging/setLevel wait until `answer()` (each request noted in `events`). */
function loggingServer(name: string, events: string[]) {
  const waiting: Array<() => void> = [];
  const server = {
    name,
    capabilities: { logging: {} },
    openLink: async (): Promise<UpstreamLink> => ({ inflight: [] }) as unknown as UpstreamLink,
    linkRequest: (_link: UpstreamLink, _identity: unknown, method: string, params: Record<string, unknown>) => {
      events.push(`${name} ${method} ${String(params.level)}`);
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
  return { server: server as unknown as UpstreamServer, answer: () => waiting.splice(0).forEach((resolve) => resolve()) };
}

const downstream = { getClientCapabilities: () => ({}) } as unknown as Server;
const ticks = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("SessionLinks: a log level set through another instance's copy of the session", () => {
  it('is on every connection of this copy before a request goes out on any of them', async () => {
    const events: string[] = [];
    const slow = loggingServer('slow', events);
    const fast = loggingServer('fast', events);
    const links = new SessionLinks(downstream, () => ({ user: 'u' }) as never, createLogger('silent'));
    links.enable();
    await links.linkFor(slow.server);
    await links.linkFor(fast.server);

    const applied = links.applyShared({ level: 'info' }, () => undefined);
    const call = links.linkFor(fast.server).then((link) => events.push(`fast call on ${link ? 'its own connection' : 'none'}`));
    await ticks();
    fast.answer();
    await ticks();
    // The fast server has the level; the slow one has not answered yet: the call waits.
    expect(events).toEqual(['slow logging/setLevel info', 'fast logging/setLevel info']);
    slow.answer();
    await Promise.all([applied, call]);
    expect(events).toEqual(['slow logging/setLevel info', 'fast logging/setLevel info', 'fast call on its own connection']);
    expect(links.logLevel()).toBe('info');
  });

  it('leaves requests free once it is set', async () => {
    const events: string[] = [];
    const server = loggingServer('one', events);
    const links = new SessionLinks(downstream, () => ({ user: 'u' }) as never, createLogger('silent'));
    links.enable();
    await links.linkFor(server.server);
    const applied = links.applyShared({ level: 'debug' }, () => undefined);
    await ticks();
    server.answer();
    await applied;
    // No level on its way: the connection is handed out at once.
    let got = false;
    void links.linkFor(server.server).then(() => (got = true));
    await ticks(2);
    expect(got).toBe(true);
  });
});
