// OpenAI chat (as openai-chat) on a gateway that also fronts a tool server and has answered one
// /mcp tools/call before the load starts: what one route costs must not change because another
// route was used (a process-wide cost, such as promise hooks turned on by the first MCP request,
// shows here and not in openai-chat). The tool calls come from a caller with a key of
// auth.apiKeys, with identity forwarding on, as on a platform: the tool server gets who called.
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
        auth: { apiKeys: [{ key: MCP_CALLER_KEY, user: 'bench@example.com', team: 'load' }] },
        identityForwarding: { signingSecret: 'bench-identity-signing-secret-0123456789' },
        mcpServers: { bench: { url: `${fakeUrl}/mcp` } },
      },
      afterStart: async ({ gatewayUrl }) => {
        for (const path of ['/mcp/bench', '/mcp']) {
          const res = await request(`${gatewayUrl}${path}`, {
            method: 'POST',
            headers: { ...MCP_HEADERS, authorization: `Bearer ${MCP_CALLER_KEY}` },
            body: JSON.stringify(callBody(path === '/mcp' ? 'bench__echo' : 'echo')),
          });
          const text = await res.body.text();
          if (res.statusCode !== 200) throw new Error(`the tools/call at ${path} before the load: ${res.statusCode} ${text.slice(0, 300)}`);
        }
      },
    };
  },
};
