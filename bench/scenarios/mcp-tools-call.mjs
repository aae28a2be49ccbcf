// MCP tools/call: through the gateway's /mcp (auth off, a client that keeps no session, the tool
// named bench__echo) against the same tool server called directly. The tool server is a minimal
// Streamable HTTP MCP server inside the fake upstream (JSON answers, no session, no server stream).

const TOOL_RESULT_TEXT = 'echo: bench';

function reply(res, status, body, headers = {}) {
  const buf = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': buf.length, ...headers });
  res.end(buf);
}

/** The tool server: initialize, tools/list, tools/call (echo), ping; notifications get 202. */
export function mcpToolServer(req, res, { body }) {
  let message;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return reply(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
  }
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const ok = (result) => reply(res, 200, { jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      return ok({ protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bench-tools', version: '1.0.0' } });
    case 'tools/list':
      return ok({ tools: [{ name: 'echo', description: 'Echoes text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] });
    case 'tools/call':
      return ok({ content: [{ type: 'text', text: `echo: ${message.params?.arguments?.text ?? ''}` }] });
    case 'ping':
      return ok({});
    default:
      return reply(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
}

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

export function callBody(name) {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { text: 'bench' } } };
}

export function expectEcho({ status, body }) {
  if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
  const text = body.toString('utf8');
  // The gateway may answer JSON or one SSE event; both carry the JSON-RPC response.
  const json = JSON.parse(
    text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data: '))
          .slice(6),
  );
  return json.result?.content?.[0]?.text === TOOL_RESULT_TEXT || `unexpected answer: ${text.slice(0, 300)}`;
}

export default {
  name: 'mcp-tools-call',
  description: 'POST /mcp tools/call (stateless client) through the gateway vs the same MCP tool server directly',
  concurrency: [1, 16],
  upstream: {
    'POST /mcp': mcpToolServer,
    'GET /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
    'DELETE /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
  },
  setup({ fakeUrl }) {
    return {
      gatewayConfig: { mcpServers: { bench: { url: `${fakeUrl}/mcp` } } },
      request: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: callBody('bench__echo') },
      upstreamRequest: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: callBody('echo') },
      expect: expectEcho,
    };
  },
};
