/**
 * The setup every tool-loop test shares: a tool server (`remote`), a fake upstream answering as
 * each provider's model (./fake-models.ts), and a gateway whose providers point at the fake and
 * whose tool server `remote` is that tool server. `extra` adds to (or replaces) the config.
 */
import { FakeUpstream } from '../../helpers/fake-upstream.js';
import { HttpToolServer } from '../../helpers/http-tool-server.js';
import { startGateway, type TestGateway } from '../../helpers/start-gateway.js';
import { anthropicModel, chatModel, geminiModel, geminiStreamModel, responsesModel } from './fake-models.js';

export interface LoopGateway {
  remote: HttpToolServer;
  fake: FakeUpstream;
  gw: TestGateway;
  close(): Promise<void>;
}

/** Starts the tool server, the fake models and the gateway (deepseek, anthropic, google and openai at the fake). */
export async function startLoopGateway(extra: (parts: { remote: HttpToolServer; fake: FakeUpstream }) => Record<string, unknown> = () => ({})): Promise<LoopGateway> {
  const remote = await new HttpToolServer().start();
  const fake = await new FakeUpstream()
    .on('POST /chat/completions', chatModel)
    .on('POST /v1/messages', anthropicModel)
    .on('POST /oai/responses', responsesModel)
    .on('POST /oai/chat/completions', chatModel)
    .on('POST /v1beta/models/gemini-2.5-flash:generateContent', geminiModel)
    .on('POST /v1beta/models/gemini-2.5-flash:streamGenerateContent', geminiStreamModel)
    .start();
  const gw = await startGateway({
    logging: { level: 'warn' },
    providers: { deepseek: { baseUrl: fake.url }, anthropic: { baseUrl: fake.url }, google: { baseUrl: fake.url }, openai: { baseUrl: `${fake.url}/oai` } },
    mcpServers: { remote: { url: remote.url } },
    ...extra({ remote, fake }),
  });
  return {
    remote,
    fake,
    gw,
    async close() {
      await gw.close();
      await remote.stop();
      await fake.stop();
    },
  };
}
