// A process (stdio) tool server that gives away what it was configured with, for the redaction
// tests: `env` answers the values of the variables named in ECHO_VARS (text and structured
// content; with `{"spelling":"unicode"}` as JSON text whose strings are written wholly as \uXXXX
// escapes, then with every other character so, in upper-case hex), `fail` fails with a JSON-RPC
// error quoting them (message and data), and on start it writes them to stderr.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

const names = (process.env.ECHO_VARS ?? '').split(',').filter(Boolean);
const values = () => Object.fromEntries(names.map((n) => [n, process.env[n] ?? null]));
const server = new Server({ name: 'echo-credentials', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'env', description: 'Answers its configured values', inputSchema: { type: 'object' } },
    { name: 'fail', description: 'Fails quoting its configured values', inputSchema: { type: 'object' } },
  ],
}));

/** JSON text of the values, each string character written as a \u escape (`every`: 1 all, 2 every other). */
function unicodeJson(every, upper) {
  const esc = (text) =>
    text
      .split('') // code units: an astral character as its surrogate pair
      .map((c, i) => {
        const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
        if (i % every !== 0) return JSON.stringify(c).slice(1, -1);
        return `\\u${upper ? hex.toUpperCase() : hex}`;
      })
      .join('');
  return `{${Object.entries(values())
    .map(([k, v]) => `"${k}":${v === null ? 'null' : `"${esc(v)}"`}`)
    .join(',')}}`;
}

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  if (req.params.name === 'env' && req.params.arguments?.spelling === 'unicode') {
    return {
      content: [
        { type: 'text', text: unicodeJson(1, false) },
        { type: 'text', text: unicodeJson(2, true) },
      ],
    };
  }
  if (req.params.name === 'env') {
    return {
      content: [
        { type: 'text', text: JSON.stringify(values()) },
        { type: 'text', text: Object.values(values()).join(' | ') },
      ],
      structuredContent: values(),
    };
  }
  if (req.params.name === 'fail')
    throw new McpError(-32001, `refused with ${Object.values(values()).join(' and ')}`, {
      values: values(),
      encoded: Object.values(values()).map((v) => encodeURIComponent(String(v))),
    });
  throw new McpError(-32602, `Unknown tool: ${req.params.name}`);
});

process.stderr.write(`starting with ${Object.values(values()).join(' ')} ${JSON.stringify(values())}\n`);
await new Promise((r) => setTimeout(r, 20));
await server.connect(new StdioServerTransport());
