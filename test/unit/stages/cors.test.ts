import { describe, expect, it } from 'vitest';
import cors from '../../../src/stages/cors.js';
import type { Middleware } from '../../../src/kernel/engine/stage.js';
import { ROUTES } from '../../../src/contract/routes.js';
import { makeContext } from '../../helpers/context.js';
import { makeServices } from '../../helpers/services.js';

const MCP = ROUTES.find((r) => r.method === 'POST' && r.path === '/mcp')!;

/** The Access-Control-Allow-Headers of a preflight to /mcp from a loopback page, with `auth` configured. */
async function allowedHeaders(auth: Record<string, unknown>): Promise<string | undefined> {
  const services = makeServices({ server: { host: '127.0.0.1' }, auth });
  const run = cors.create({ methods: ['POST', 'OPTIONS'], allowHeaders: ['Authorization', 'Content-Type'] }, services) as Middleware;
  const ctx = makeContext(MCP, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', host: '127.0.0.1:8787' } });
  await run(ctx, () => Promise.reject(new Error('a preflight is answered by cors')));
  expect(ctx.response).toEqual({ kind: 'empty', status: 204 });
  return ctx.responseHeaders['access-control-allow-headers'] as string | undefined;
}

describe('cors', () => {
  it("a preflight allows the configured headers and the one the auth feature's api keys come in", async () => {
    expect(await allowedHeaders({ enabled: true, type: 'api-key', header: 'X-Team-Key' })).toBe('Authorization, Content-Type, X-Team-Key');
    expect(await allowedHeaders({ enabled: true, type: 'api-key' })).toBe('Authorization, Content-Type, X-API-Key');
    expect(await allowedHeaders({ enabled: true, type: 'bearer' })).toBe('Authorization, Content-Type');
  });
});
