import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * A remote tool server for the tests (Streamable HTTP, stateless, JSON answers) that serves each
 * request with a fresh MCP SDK server from `make`: what `make` reads at the time (the tools,
 * prompts or instructions a test changed) is what that request sees.
 */
export async function sdkRemoteServer(make: () => Server): Promise<{ url: string; stop(): Promise<void> }> {
  const http: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const server = make();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        const text = Buffer.concat(chunks).toString('utf8');
        await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    stop: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
