// The gateway's own tool server for the MCP conformance suite's server scenarios (and for the
// relay tests): every tool, prompt, resource and utility those scenarios call, written against the
// SDK's low-level Server. Runs over stdio (`node conformance-tool-server.mjs --stdio`, a process
// server) or Streamable HTTP (`node conformance-tool-server.mjs --port 0`: prints `READY <port>` and
// serves /mcp with sessions and resumable streams).
//
// Extra tools for the relay tests: test_roots (asks the client for its roots), test_slow (waits
// `ms`, sends progress, stops early when cancelled), change_tools (adds a tool and tells clients
// the list changed), update_watched (tells subscribers test://watched-resource changed;
// update_watched_everywhere: those of every session of the process),
// whoami (the forwarded identity), test_two_questions (elicits a name, then asks for a completion
// with it), test_ask_then_report (elicits a name, then sends progress and a log message),
// test_slow_logging (waits `ms`, logging as it goes).
// `--page-size N` pages tools/list, so a cursor matters.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV_EMPTY = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const pageArg = process.argv.indexOf('--page-size');
/** tools/list page size (`--page-size N`; by default every tool fits one page). */
const PAGE = pageArg >= 0 ? Number(process.argv[pageArg + 1]) : 1000;

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

const noArgs = { type: 'object', properties: {} };
const BASE_TOOLS = [
  { name: 'test_simple_text', description: 'Answers one text block', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Answers an image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Answers audio', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Answers an embedded resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Answers text, image and a resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress three times', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails (isError)', inputSchema: noArgs },
  { name: 'test_reconnection', description: 'Closes its event stream mid-call; the result comes after the client reconnects', inputSchema: noArgs },
  {
    name: 'test_sampling',
    description: 'Asks the client for a completion',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for input',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with a default for each primitive type', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with the five enum shapes', inputSchema: noArgs },
  {
    name: 'json_schema_2020_12_tool',
    description: 'A tool whose input schema uses JSON Schema 2020-12 keywords',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
  { name: 'test_roots', description: 'Asks the client for its roots', inputSchema: noArgs },
  { name: 'test_slow', description: 'Waits ms milliseconds, reporting progress; stops when cancelled', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
  { name: 'change_tools', description: 'Adds a tool and sends tools/list_changed', inputSchema: noArgs },
  { name: 'update_watched', description: 'Sends resources/updated for test://watched-resource to subscribers', inputSchema: noArgs },
  {
    name: 'update_watched_everywhere',
    description: 'Sends resources/updated for test://watched-resource to the subscribers of every session of this server',
    inputSchema: noArgs,
  },
  { name: 'slow_status', description: 'How the last test_slow ended: done or cancelled', inputSchema: noArgs },
  {
    name: 'test_slow_logging',
    description: 'Waits ms milliseconds, logging a message every quarter of it (no progress)',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  },
  { name: 'test_cancel_client', description: 'Asks the client for a completion, gives up after 300 ms (cancelling it)', inputSchema: noArgs },
  { name: 'whoami', description: 'Answers the identity the gateway forwarded', inputSchema: noArgs },
  { name: 'test_two_questions', description: 'Asks the user for a name, then the client for a completion that uses it', inputSchema: noArgs },
  {
    name: 'test_ask_then_report',
    description: 'Asks the user for a name, waits ms milliseconds (stops when cancelled), then reports progress and logs a greeting',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', title: 'Static text', description: 'A text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', title: 'Static binary', description: 'A PNG resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', title: 'Watched', description: 'Subscribe to hear of its updates', mimeType: 'text/plain' },
];

const PROMPTS = [
  { name: 'test_simple_prompt', title: 'Simple', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    title: 'With arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    title: 'With a resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'The URI to embed', required: true }],
  },
  { name: 'test_prompt_with_image', title: 'With an image', description: 'A prompt with an image' },
];

/** The subscriptions of every session of this process: its server -> the URIs it subscribed to. */
const everySession = new Map();

/** One MCP server (one per HTTP session, one for stdio); `context` holds what it needs of its transport. */
function buildServer(context) {
  const server = new Server(
    { name: 'gateway-conformance-tools', title: 'Conformance tool server', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
      instructions: 'The conformance tool server of the gateway tests.',
    },
  );
  const added = [];
  const subscriptions = new Set();
  everySession.set(server, subscriptions);
  server.onclose = () => everySession.delete(server);
  let lastSlow = 'none';
  let minLevel = 0;

  const log = (level, data, extra) => {
    if (LEVELS.indexOf(level) < minLevel) return Promise.resolve();
    const n = { method: 'notifications/message', params: { level, logger: 'conformance-tools', data } };
    return extra ? extra.sendNotification(n) : server.notification(n);
  };

  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    minLevel = Math.max(0, LEVELS.indexOf(req.params.level));
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const all = [...BASE_TOOLS, ...added.map((name) => ({ name, description: 'Added at run time', inputSchema: noArgs }))];
    const start = req.params?.cursor ? Number(Buffer.from(req.params.cursor, 'base64url').toString()) : 0;
    const page = all.slice(start, start + PAGE);
    const next = start + PAGE < all.length ? Buffer.from(String(start + PAGE)).toString('base64url') : undefined;
    return { tools: page, ...(next ? { nextCursor: next } : {}) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = req.params.arguments ?? {};
    const text = (t) => ({ content: [{ type: 'text', text: t }] });
    switch (req.params.name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV_EMPTY, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
          ],
        };
      case 'test_tool_with_logging':
        await log('info', 'Tool execution started', extra);
        await sleep(50);
        await log('info', 'Tool processing data', extra);
        await sleep(50);
        await log('info', 'Tool execution completed', extra);
        return text('Tool with logging executed successfully');
      case 'test_tool_with_progress': {
        const token = req.params._meta?.progressToken ?? 0;
        for (const progress of [0, 50, 100]) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message: `step ${progress} of 100` } });
          if (progress < 100) await sleep(50);
        }
        return text(String(token));
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_reconnection':
        context.closeStream?.(extra.requestId);
        await sleep(100);
        return text('Reconnection test completed successfully.');
      case 'test_sampling': {
        const result = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 } },
          CreateMessageResultSchema,
        );
        return text(`LLM response: ${result.content?.text ?? ''}`);
      }
      case 'test_elicitation': {
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: String(args.message),
              requestedSchema: {
                type: 'object',
                properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
                required: ['username', 'email'],
              },
            },
          },
          ElicitResultSchema,
        );
        return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'test_elicitation_sep1034_defaults': {
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Review the fields (each has a default)',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', description: 'User name', default: 'John Doe' },
                  age: { type: 'integer', description: 'User age', default: 30 },
                  score: { type: 'number', description: 'User score', default: 95.5 },
                  status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
                  verified: { type: 'boolean', description: 'Verified', default: true },
                },
                required: [],
              },
            },
          },
          ElicitResultSchema,
        );
        return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'test_elicitation_sep1330_enums': {
        const options = (prefix, titles) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Pick from the enum fields',
              requestedSchema: {
                type: 'object',
                properties: {
                  untitledSingle: { type: 'string', description: 'One option', enum: ['option1', 'option2', 'option3'] },
                  titledSingle: { type: 'string', description: 'One titled option', oneOf: options('value', ['First Option', 'Second Option', 'Third Option']) },
                  legacyEnum: { type: 'string', description: 'Legacy titles', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
                  untitledMulti: { type: 'array', description: 'Several options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
                  titledMulti: {
                    type: 'array',
                    description: 'Several titled options',
                    minItems: 1,
                    maxItems: 3,
                    items: { anyOf: options('value', ['First Choice', 'Second Choice', 'Third Choice']) },
                  },
                },
                required: [],
              },
            },
          },
          ElicitResultSchema,
        );
        return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'json_schema_2020_12_tool':
        return text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);
      case 'test_roots': {
        const result = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
        return text(JSON.stringify(result.roots));
      }
      case 'test_slow': {
        const ms = Number(args.ms ?? 200);
        const token = req.params._meta?.progressToken;
        const steps = 4;
        for (let i = 1; i <= steps && !extra.signal.aborted; i++) {
          await sleep(ms / steps, extra.signal);
          if (token !== undefined && !extra.signal.aborted)
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
        }
        lastSlow = extra.signal.aborted ? 'cancelled' : 'done';
        return text(extra.signal.aborted ? 'cancelled' : 'done');
      }
      case 'test_slow_logging': {
        const ms = Number(args.ms ?? 200);
        for (let i = 1; i <= 4 && !extra.signal.aborted; i++) {
          await sleep(ms / 4, extra.signal);
          if (!extra.signal.aborted) await log('info', `step ${i}`, extra);
        }
        return text(extra.signal.aborted ? 'cancelled' : 'logged');
      }
      case 'slow_status':
        return text(lastSlow);
      case 'test_cancel_client':
        try {
          await extra.sendRequest(
            { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'never mind' } }], maxTokens: 1 } },
            CreateMessageResultSchema,
            {
              timeout: 300,
            },
          );
          return text('client answered');
        } catch (err) {
          return text(`gave up: ${err.message}`);
        }
      case 'change_tools':
        added.push(`added_${added.length + 1}`);
        await server.sendToolListChanged();
        return text(`added ${added.at(-1)}`);
      case 'update_watched_everywhere': {
        let told = 0;
        for (const [s, subs] of everySession) {
          if (!subs.has('test://watched-resource')) continue;
          told++;
          await s.sendResourceUpdated({ uri: 'test://watched-resource' }).catch(() => undefined);
        }
        return text(`sessions told: ${told}`);
      }
      case 'update_watched':
        if (subscriptions.has('test://watched-resource')) await server.sendResourceUpdated({ uri: 'test://watched-resource' });
        return text(`subscribers: ${subscriptions.size}`);
      case 'test_two_questions': {
        const who = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
          },
          ElicitResultSchema,
        );
        if (who.action !== 'accept') return text(`declined: ${who.action}`);
        const reply = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: `Greet ${who.content?.name}` } }], maxTokens: 50 } },
          CreateMessageResultSchema,
        );
        return text(`${who.content?.name}: ${reply.content?.text ?? ''}`);
      }
      case 'test_ask_then_report': {
        const who = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
          },
          ElicitResultSchema,
        );
        await sleep(Number(args.ms ?? 0), extra.signal);
        if (extra.signal.aborted) return text('cancelled');
        const token = req.params._meta?.progressToken;
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 1 } });
        await log('info', `hello ${who.content?.name}`, extra);
        return text(`reported ${who.content?.name}`);
      }
      case 'whoami':
        return text(JSON.stringify({ meta: req.params._meta?.['io.gateway/identity'] ?? null, headers: context.headers?.() ?? null }));
      default:
        return { isError: true, content: [{ type: 'text', text: `Unknown tool ${req.params.name}` }] };
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', title: 'Template', description: 'Data by id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG_1X1 }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] };
    const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
    if (m) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }] };
    throw Object.assign(new Error(`Resource not found: ${uri}`), { code: -32002 });
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscriptions.add(req.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscriptions.delete(req.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const args = req.params.arguments ?? {};
    const user = (content) => ({ role: 'user', content });
    switch (req.params.name) {
      case 'test_simple_prompt':
        return { messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })] };
      case 'test_prompt_with_arguments':
        return { messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` })] };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            user({ type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
            user({ type: 'text', text: 'Please process the embedded resource above.' }),
          ],
        };
      case 'test_prompt_with_image':
        return { messages: [user({ type: 'image', data: PNG_1X1, mimeType: 'image/png' }), user({ type: 'text', text: 'Please analyze the image above.' })] };
      default:
        throw Object.assign(new Error(`Unknown prompt ${req.params.name}`), { code: -32602 });
    }
  });

  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const value = String(req.params.argument?.value ?? '');
    const values = ['paris', 'park', 'party'].filter((v) => v.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** Events kept for resumable streams (Last-Event-ID), per process. */
function memoryEventStore() {
  const events = [];
  let n = 0;
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}|${String(++n).padStart(10, '0')}`;
      events.push({ eventId, streamId, message });
      if (events.length > 10_000) events.splice(0, 1000);
      return eventId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.split('|')[0];
      for (const e of events) if (e.streamId === streamId && e.eventId > lastEventId) await send(e.eventId, e.message);
      return streamId;
    },
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const loopbackHost = (host) => host !== undefined && LOOPBACK.has(host.replace(/:\d+$/, '').toLowerCase());
function loopbackOrigin(origin) {
  try {
    return LOOPBACK.has(new URL(origin).hostname.toLowerCase());
  } catch {
    return false;
  }
}

async function serveHttp(port) {
  const sessions = new Map();
  const eventStore = memoryEventStore();
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    // DNS-rebinding protection of a loopback server: Host and Origin must name a loopback host.
    if (!loopbackHost(req.headers.host) || (req.headers.origin !== undefined && !loopbackOrigin(req.headers.origin))) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Host or Origin not allowed"}}');
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId)?.transport : undefined;
    if (!transport) {
      if (sessionId || req.method !== 'POST' || body?.method !== 'initialize') {
        res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}');
        return;
      }
      let lastHeaders = {};
      const context = { headers: () => lastHeaders };
      const server = buildServer(context);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore,
        retryInterval: 300,
        onsessioninitialized: (id) => sessions.set(id, { transport, server, context }),
        onsessionclosed: (id) => sessions.delete(id),
      });
      context.closeStream = (requestId) => transport.closeSSEStream(requestId);
      context.setHeaders = (h) => (lastHeaders = h);
      await server.connect(transport);
    }
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    session?.context.setHeaders(Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('x-user-') || k === 'x-organization-id' || k === 'authorization')));
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => http.listen(port, '127.0.0.1', resolve));
  process.stdout.write(`READY ${http.address().port}\n`);
  const stop = () => {
    http.close();
    http.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function serveStdio() {
  const context = {};
  const server = buildServer(context);
  await server.connect(new StdioServerTransport());
}

const argv = process.argv.slice(2);
if (argv.includes('--stdio')) await serveStdio();
else {
  const i = argv.indexOf('--port');
  await serveHttp(i >= 0 ? Number(argv[i + 1]) : 0);
}
