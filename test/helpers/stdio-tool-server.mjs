// A process (stdio) tool server for the tests, run by the gateway with `node <this file>`.
// Tools: whoami (answers params._meta["io.gateway/identity"] and whether the caller's own
// credential reached it), echo, crash (the process exits), add-tool (adds a tool and sends
// notifications/tools/list_changed), env (answers which env names it got); with --bulk or --page
// (see below) also list-count and many tools, paged. On start it writes
// a stderr line that includes TOOL_TOKEN, so the tests can check the gateway masks it in logs.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

/** `--bulk <n>`: n more tools, bulk_000 ... (listed in reverse order); `--page <n>`: tools/list answers n tools a page (nextCursor). */
const option = (name) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : 0;
};
const bulk = Array.from({ length: option('--bulk') }, (_, i) => `bulk_${String(i).padStart(3, '0')}`).reverse();
const pageSize = option('--page');
const extra = [];
/** tools/list requests answered so far (the list-count tool tells). */
let lists = 0;
const server = new Server({ name: 'test-stdio-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

server.setRequestHandler(ListToolsRequestSchema, async (req) => {
  lists++;
  const tools = [
    { name: 'whoami', description: 'Answers the forwarded identity', inputSchema: { type: 'object' } },
    { name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    { name: 'crash', description: 'Exits the process', inputSchema: { type: 'object' } },
    { name: 'add-tool', description: 'Adds a tool', inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    { name: 'env', description: 'Env names it got', inputSchema: { type: 'object' } },
    ...(bulk.length || pageSize ? [{ name: 'list-count', description: 'How many tools/list requests it answered', inputSchema: { type: 'object' } }] : []),
    ...bulk.map((name) => ({ name, description: `Bulk tool ${name}`, inputSchema: { type: 'object' } })),
    ...extra.map((name) => ({ name, description: 'added', inputSchema: { type: 'object' } })),
  ];
  if (!pageSize) return { tools };
  const start = Number(req.params?.cursor ?? 0);
  const next = start + pageSize;
  return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
});

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments ?? {};
  switch (req.params.name) {
    case 'whoami':
      return { content: [{ type: 'text', text: JSON.stringify({ identity: req.params._meta?.['io.gateway/identity'] ?? null, meta: req.params._meta ?? null }) }] };
    case 'echo':
      return { content: [{ type: 'text', text: `echo: ${args.text}` }] };
    case 'crash':
      process.stderr.write('crashing on purpose\n');
      setTimeout(() => process.exit(3), 10);
      return { content: [{ type: 'text', text: 'bye' }] };
    case 'add-tool':
      extra.push(String(args.name));
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    case 'list-count':
      return { content: [{ type: 'text', text: String(lists) }] };
    case 'env':
      return {
        content: [
          { type: 'text', text: JSON.stringify({ TOOL_TOKEN: process.env.TOOL_TOKEN ? 'set' : 'unset', GATEWAY_ADMIN_TOKEN: process.env.GATEWAY_ADMIN_TOKEN ? 'set' : 'unset' }) },
        ],
      };
    default:
      if (extra.includes(req.params.name)) return { content: [{ type: 'text', text: req.params.name }] };
      throw new McpError(-32602, `Unknown tool: ${req.params.name}`);
  }
});

process.stderr.write(`stdio tool server starting (token ${process.env.TOOL_TOKEN ?? 'none'})\n`);
await server.connect(new StdioServerTransport());
