import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  isInitializeRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** One HTTP request the tool server received. */
export interface ReceivedHttp {
  method: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** One tool call as the tool server saw it. */
export interface ReceivedCall {
  tool: string;
  headers: IncomingHttpHeaders;
  meta: Record<string, unknown> | undefined;
  args: Record<string, unknown>;
}

/**
 * A remote Streamable HTTP tool server for the tests (SDK Server + transport, sessions), on a
 * free loopback port. Tools: echo, add, whoami (answers the identity headers it got), leak
 * (fails with a message that quotes the Authorization header it received), slow (waits).
 * Resources: note://greeting and the template note://items/{id}; prompt: greet. Records every
 * HTTP request and every tool call with its headers. `requireAuthorization` makes it answer
 * 401 unless that exact Authorization header is sent.
 */
export class HttpToolServer {
  readonly requests: ReceivedHttp[] = [];
  readonly calls: ReceivedCall[] = [];
  /** Calls of `slow` running now, and the most that ran at once. */
  slowRunning = 0;
  slowMostAtOnce = 0;
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  private readonly extraTools: string[] = [];
  private server?: HttpServer;
  url = '';

  /** `jsonResponse`: answers POSTs with one JSON body (no event stream). */
  /** `protectedResource`: its RFC 9728 metadata, served at /.well-known/oauth-protected-resource[/mcp]. */
  /** `requireBearer`: answers 401 unless it accepts the Authorization header (any of its users' tokens). */
  constructor(
    private readonly options: {
      requireAuthorization?: string;
      requireBearer?: (authorization: string) => boolean;
      jsonResponse?: boolean;
      protectedResource?: () => Record<string, unknown>;
    } = {},
  ) {}

  private build(): Server {
    const server = new Server(
      { name: 'test-http-tools', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } } },
    );
    const tools = () => [
      { name: 'echo', description: 'Echoes the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
      { name: 'whoami', description: 'Answers the identity headers it received', inputSchema: { type: 'object' } },
      { name: 'leak', description: 'Fails, quoting its Authorization header', inputSchema: { type: 'object' } },
      { name: 'slow', description: 'Waits ms milliseconds', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
      ...this.extraTools.map((name) => ({ name, description: `Added at run time: ${name}`, inputSchema: { type: 'object' } })),
    ];
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() as any }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const headers = extra.requestInfo?.headers ?? {};
      const name = req.params.name;
      const args = (req.params.arguments ?? {}) as Record<string, any>;
      this.calls.push({ tool: name, headers, meta: req.params._meta as Record<string, unknown> | undefined, args });
      const pick = (n: string) => (typeof headers[n] === 'string' ? headers[n] : null);
      switch (name) {
        case 'echo':
          return { content: [{ type: 'text', text: `echo: ${args.text}` }] };
        case 'add':
          return { content: [{ type: 'text', text: String(args.a + args.b) }], structuredContent: { sum: args.a + args.b } };
        case 'whoami':
          return {
            content: [
              {
                type: 'text',
                text: JSON.stringify({
                  email: pick('x-user-email'),
                  name: pick('x-user-name'),
                  team: pick('x-user-team'),
                  roles: pick('x-user-roles'),
                  organization: pick('x-organization-id'),
                  signature: pick('x-gateway-identity-signature'),
                }),
              },
            ],
          };
        case 'leak':
          throw new McpError(-32000, `refused; I was sent authorization=${String(headers.authorization)}`);
        case 'slow':
          this.slowMostAtOnce = Math.max(this.slowMostAtOnce, ++this.slowRunning);
          try {
            await new Promise((r) => setTimeout(r, Number(args.ms ?? 0)));
          } finally {
            this.slowRunning--;
          }
          return { content: [{ type: 'text', text: 'done' }] };
        default:
          if (this.extraTools.includes(name)) return { content: [{ type: 'text', text: name }] };
          throw new McpError(-32602, `Unknown tool: ${name}`);
      }
    });
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [{ name: 'greeting', uri: 'note://greeting', description: 'A greeting', mimeType: 'text/plain' }],
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [{ name: 'item', uriTemplate: 'note://items/{id}', description: 'An item by id' }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      const uri = req.params.uri;
      if (uri === 'note://greeting') return { contents: [{ uri, mimeType: 'text/plain', text: 'hello from the http tool server' }] };
      const m = /^note:\/\/items\/(.+)$/.exec(uri);
      if (m) return { contents: [{ uri, mimeType: 'text/plain', text: `item ${m[1]}` }] };
      throw new McpError(-32602, `Unknown resource: ${uri}`);
    });
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] }],
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (req) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${req.params.arguments?.who}` } }],
    }));
    return server;
  }

  /** Adds a tool on every open session: each sends notifications/tools/list_changed. */
  addTool(name: string): void {
    this.extraTools.push(name);
    for (const { server } of this.sessions.values()) void server.sendToolListChanged();
  }

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      this.requests.push({ method: req.method ?? '', headers: req.headers, body });
      if (this.options.protectedResource && req.method === 'GET' && req.url?.startsWith('/.well-known/oauth-protected-resource')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.options.protectedResource()));
        return;
      }
      const refused =
        (this.options.requireAuthorization && req.headers.authorization !== this.options.requireAuthorization) ||
        (this.options.requireBearer && !this.options.requireBearer(req.headers.authorization ?? ''));
      if (refused) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      let entry = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
      if (!entry) {
        if (req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }));
          return;
        }
        const server = this.build();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: this.options.jsonResponse === true,
          onsessioninitialized: (id) => {
            this.sessions.set(id, { transport, server });
          },
        });
        await server.connect(transport);
        entry = { transport, server };
      }
      await entry.transport.handleRequest(req, res, body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  /** Forgets every session (as a restarted server would). */
  dropSessions(): void {
    for (const { transport } of this.sessions.values()) void transport.close();
    this.sessions.clear();
  }

  async stop(): Promise<void> {
    this.dropSessions();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
