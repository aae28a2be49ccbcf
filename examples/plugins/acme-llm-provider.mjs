// An example provider written with the public plugin API: Acme LLM, a service that speaks
// OpenAI's chat completions API at its own address. `openAICompatible` builds the provider (the
// request, the answer and stream mapping, OpenAI's error shape); `defineProvider` checks it the
// way start-up does. Callers then pick it like any built-in provider:
//   x-gateway-provider: acme-llm, x-gateway-api-key: <Acme key>
// and `providers.acme-llm.baseUrl` in the gateway config points it elsewhere (a proxy, a test fake).
import { defineProvider, openAICompatible } from 'pipeline-gateway/plugin';

export default defineProvider(
  openAICompatible({
    name: 'acme-llm',
    displayName: 'Acme LLM',
    defaultBaseUrl: 'https://api.acme-llm.example/v1',
    operations: ['chat.completions'],
  }),
);
