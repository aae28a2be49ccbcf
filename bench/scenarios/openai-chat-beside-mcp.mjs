// OpenAI chat (as openai-chat) on a gateway that also fronts a tool server and has answered /mcp
// tools/calls (session-less, and in an MCP session) before the load starts: what one route costs
// must not change because another route was used (a process-wide cost, such as promise hooks
// turned on by the first MCP request, shows here and not in openai-chat). The tool calls come from
// a caller with a key of auth.apiKeys (auth on for /mcp; the provider route still takes the
// request's own provider key), with identity forwarding on, as on a platform: the tool server
// gets who called.
import { request } from 'undici';
import openaiChat from './openai-chat.mjs';
import { callBody, MCP_HEADERS, mcpToolServer } from './mcp-tools-call.mjs';

const MCP_CALLER_KEY = 'bench-mcp-caller-key-0123456789abcdefghij';

export default {
  name: 'openai-chat-beside-mcp',
  description: 'POST /v1/chat/completions (as openai-chat) on a gateway with a tool server that has served a /mcp tools/call of a caller with a key (identity forwarding on)',
  upstream: {
    'POST /mcp': mcpToolServer,
    'GET /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
    'DELETE /mcp': (req, res) => res.writeHead(405, { allow: 'POST' }).end(),
  },
  setup({ fakeUrl }) {
    const base = openaiChat.setup({ fakeUrl });
    return {
      ...base,
      gatewayConfig: {
        ...base.gatewayConfig,
        auth: { enabled: true, type: 'api-key', apiKeys: [{ key: MCP_CALLER_KEY, user: 'bench@example.com', team: 'load' }] },
        identityForwarding: { signingSecret: 'bench-identity-signing-secret-0123456789' },
        mcpServers: { bench: { url: `${fakeUrl}/mcp` } },
      },
      afterStart: async ({ gatewayUrl }) => {
        const headers = { ...MCP_HEADERS, 'x-api-key': MCP_CALLER_KEY };
        const post = async (path, message, extra = {}) => {
          const res = await request(`${gatewayUrl}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(message) });
          const text = await res.body.text();
          if (res.statusCode >= 300) throw new Error(`${message.method} at ${path} before the load: ${res.statusCode} ${text.slice(0, 300)}`);
          return res.headers['mcp-session-id'];
        };
        // A session-less call at /mcp/<server> and at /mcp, then a call in an MCP session at /mcp (initialize, initialized, tools/call).
        await post('/mcp/bench', callBody('echo'));
        await post('/mcp', callBody('bench__echo'));
        const session = await post('/mcp', {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
        });
        if (!session) throw new Error('initialize at /mcp before the load: no Mcp-Session-Id');
        await post('/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session });
        await post('/mcp', callBody('bench__echo'), { 'mcp-session-id': session });
      },
    };
  },
};
