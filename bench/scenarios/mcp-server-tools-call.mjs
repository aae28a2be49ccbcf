// MCP tools/call through /mcp/<server> (the faithful relay: body passed on unchanged, answer
// streamed back), with authentication (an api-key) and identity forwarding (signed) on, against
// the same tool server called directly and through the bare proxy. The tool server is the one of
// mcp-tools-call (inside the fake upstream: JSON answers, no session).
import { callBody, expectEcho, MCP_HEADERS, mcpToolServer } from './mcp-tools-call.mjs';

const KEY = 'bench-mcp-key-0123456789abcdef';

export default {
  name: 'mcp-server-tools-call',
  description: 'POST /mcp/<server> tools/call (stateless client, auth and identity forwarding on) vs the same MCP tool server directly',
  concurrency: [1, 16],
  upstream: {
    'POST /mcp': mcpToolServer,
    'GET /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
    'DELETE /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
  },
  setup({ fakeUrl }) {
    return {
      gatewayConfig: {
        auth: { enabled: true, type: 'api-key', apiKeys: [{ key: KEY, user: 'bench@example.com', team: 'bench', roles: ['dev'], scopes: ['mcp:read', 'mcp:write'] }] },
        identityForwarding: { signingSecret: 'bench-identity-signing-secret-0123456789' },
        mcpServers: { bench: { url: `${fakeUrl}/mcp` } },
      },
      request: { method: 'POST', path: '/mcp/bench', headers: { ...MCP_HEADERS, 'x-api-key': KEY }, body: callBody('echo') },
      upstreamRequest: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: callBody('echo') },
      expect: expectEcho,
    };
  },
};
