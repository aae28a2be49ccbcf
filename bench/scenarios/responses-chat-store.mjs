// The Responses API translated through chat with store: true (the default): each answer is also
// written to the gateway's SQLite store before it is sent.
import { responsesScenario } from './responses-chat.mjs';

export default responsesScenario({
  name: 'responses-chat-store',
  description: 'POST /v1/responses, store: true (as responses-chat, plus one write to the SQLite store per answer)',
  store: true,
});
