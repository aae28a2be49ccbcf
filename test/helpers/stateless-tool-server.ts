import { createServer, type IncomingHttpHeaders, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const V = '2026-07-28';

/** One request the server received. */
export interface StatelessReceived {
  headers: IncomingHttpHeaders;
  body: any;
}

/**
 * A tool server of the stateless revision only (2026-07-28) for the tests: no initialize (a
 * request without the revision's MCP-Protocol-Version is refused with UnsupportedProtocolVersion),
 * server/discover, tools/list, tools/call, subscriptions/listen. Tools: echo; ask_name (answers
 * input_required with an elicitation and requestState "st-1" unless the request carries the
 * answer and that state; -32021 when the client declared no elicitation); count (progress
 * twice, on an event stream); chatty (a log message when the request set a logLevel); whoami
 * (the identity headers it got). `changeTools()` tells listeners the tool list changed.
 */
export class StatelessToolServer {
  readonly received: StatelessReceived[] = [];
  private readonly listeners = new Set<{ res: ServerResponse; id: unknown }>();
  private server?: HttpServer;
  private extra: string[] = [];
  url = '';

  changeTools(name: string): void {
    this.extra.push(name);
    for (const l of this.listeners) {
      l.res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': l.id } } })}\n\n`,
      );
    }
  }

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      this.received.push({ headers: req.headers, body });
      const json = (status: number, message: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
      };
      const version = req.headers['mcp-protocol-version'];
      if (version !== V) {
        json(400, { jsonrpc: '2.0', id: body?.id ?? null, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [V], requested: version ?? null } } });
        return;
      }
      const meta = body?.params?._meta ?? {};
      if (meta['io.modelcontextprotocol/protocolVersion'] !== V || req.headers['mcp-method'] !== body?.method) {
        json(400, { jsonrpc: '2.0', id: body?.id ?? null, error: { code: -32020, message: 'Header mismatch' } });
        return;
      }
      const id = body.id;
      const ok = (result: Record<string, unknown>) => json(200, { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result } });
      const params = body.params ?? {};
      switch (body.method) {
        case 'server/discover':
          ok({
            supportedVersions: [V],
            capabilities: { tools: { listChanged: true }, logging: {} },
            instructions: 'A tool server of the stateless revision.',
            ttlMs: 0,
            cacheScope: 'public',
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'stateless-tools', version: '2.0.0' } },
          });
          return;
        case 'tools/list':
          ok({
            tools: ['echo', 'ask_name', 'count', 'chatty', 'whoami', ...this.extra].map((name) => ({ name, inputSchema: { type: 'object' } })),
            ttlMs: 0,
            cacheScope: 'public',
          });
          return;
        case 'subscriptions/listen': {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: {} })}\n\n`);
          const entry = { res, id };
          this.listeners.add(entry);
          res.once('close', () => this.listeners.delete(entry));
          return;
        }
        case 'tools/call':
          break;
        default:
          json(404, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${body.method}` } });
          return;
      }
      if (req.headers['mcp-name'] !== params.name) {
        json(400, { jsonrpc: '2.0', id, error: { code: -32020, message: 'Header mismatch: Mcp-Name' } });
        return;
      }
      const text = (t: string) => ok({ content: [{ type: 'text', text: t }] });
      switch (params.name) {
        case 'echo':
          text(`echo: ${params.arguments?.text}`);
          return;
        case 'whoami':
          text(JSON.stringify({ email: req.headers['x-user-email'] ?? null, auth: req.headers.authorization ?? null }));
          return;
        case 'ask_name': {
          const answer = params.inputResponses?.name;
          if (answer && params.requestState === 'st-1') {
            text(answer.action === 'accept' ? `hello ${answer.content?.name}` : `no name (${answer.action})`);
            return;
          }
          if (!meta['io.modelcontextprotocol/clientCapabilities']?.elicitation) {
            json(400, { jsonrpc: '2.0', id, error: { code: -32021, message: 'Elicitation required', data: { requiredCapabilities: { elicitation: {} } } } });
            return;
          }
          ok({
            resultType: 'input_required',
            inputRequests: {
              name: {
                method: 'elicitation/create',
                params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
              },
            },
            requestState: 'st-1',
          });
          return;
        }
        case 'count':
        case 'chatty': {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const send = (m: unknown) => res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
          if (params.name === 'count' && meta.progressToken !== undefined) {
            for (const progress of [1, 2]) send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: meta.progressToken, progress, total: 2 } });
          }
          if (params.name === 'chatty' && meta['io.modelcontextprotocol/logLevel']) {
            send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'chatter', data: `level ${meta['io.modelcontextprotocol/logLevel']}` } });
          }
          send({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text: `${params.name} done` }] } });
          res.end();
          return;
        }
        default:
          json(200, { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params.name}` } });
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async stop(): Promise<void> {
    for (const l of this.listeners) l.res.end();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
